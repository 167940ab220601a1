import Postgres

/// The money tables in the gateway schema, beside the users they belong to (docs/decisions/0040-money-in-the-gateway.md):
/// the users' payment ids, each Stripe subscription's last applied state, the Stripe event ids already applied,
/// and the Robinhood MCP link.
enum MoneySchema {
    static let migrations: [Migration] = [
        Migration(
            version: 30, name: "money",
            sql: """
                ALTER TABLE gateway.users ADD COLUMN IF NOT EXISTS stripe_customer_id TEXT;
                ALTER TABLE gateway.users ADD COLUMN IF NOT EXISTS stripe_subscription_id TEXT;
                ALTER TABLE gateway.users ADD COLUMN IF NOT EXISTS apple_original_transaction_id TEXT;
                CREATE UNIQUE INDEX IF NOT EXISTS users_apple_original_txn_idx
                    ON gateway.users (apple_original_transaction_id) WHERE apple_original_transaction_id IS NOT NULL;
                CREATE INDEX IF NOT EXISTS users_stripe_customer_idx
                    ON gateway.users (stripe_customer_id) WHERE stripe_customer_id IS NOT NULL;
                CREATE TABLE IF NOT EXISTS gateway.stripe_events (
                    id TEXT PRIMARY KEY,
                    type TEXT NOT NULL,
                    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE TABLE IF NOT EXISTS gateway.stripe_subscriptions (
                    id TEXT PRIMARY KEY,
                    user_id TEXT REFERENCES gateway.users(id) ON DELETE SET NULL,
                    customer_id TEXT,
                    state TEXT NOT NULL,
                    event_created BIGINT NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE TABLE IF NOT EXISTS gateway.user_robinhood_mcp (
                    user_id TEXT PRIMARY KEY REFERENCES gateway.users(id) ON DELETE CASCADE,
                    token_ciphertext TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    last4 TEXT NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL
                );
                """)
    ]
}
