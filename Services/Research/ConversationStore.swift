import Contracts
import Crypto
import Foundation
import Postgres

/// Research conversations and their turns (`research.conversations`, `research.messages`), owned by the Research
/// service. A user message is unique per user and client message id; an assistant turn is unique per user message,
/// so retries and concurrent duplicates converge on one stored turn.
struct ConversationStore: Sendable {
    let db: PostgresPool

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "conversations and messages",
            sql: """
                CREATE TABLE IF NOT EXISTS research.conversations (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    ticker TEXT,
                    status TEXT NOT NULL,
                    derivation_id TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
                );
                CREATE INDEX IF NOT EXISTS conversations_user_idx ON research.conversations (user_id, updated_at DESC);
                CREATE TABLE IF NOT EXISTS research.messages (
                    id TEXT PRIMARY KEY,
                    conversation_id TEXT NOT NULL REFERENCES research.conversations(id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL,
                    role TEXT NOT NULL,
                    content TEXT NOT NULL,
                    provider TEXT,
                    client_message_id TEXT,
                    reply_to TEXT,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE UNIQUE INDEX IF NOT EXISTS messages_client_idx ON research.messages (user_id, client_message_id)
                    WHERE client_message_id IS NOT NULL;
                CREATE UNIQUE INDEX IF NOT EXISTS messages_reply_idx ON research.messages (reply_to)
                    WHERE reply_to IS NOT NULL;
                CREATE INDEX IF NOT EXISTS messages_conversation_idx ON research.messages (conversation_id, created_at);
                """)
    ]

    /// A stored user message and, once answered, its reply.
    struct Turn: Sendable {
        var conversationId: String
        var ticker: String?
        var derivationId: String?
        var question: ResearchArticle
        var answer: ResearchArticle?
        var status: ResearchStatus
    }

    private static let iso = "to_char(%@ AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    private static func isoColumn(_ column: String, as name: String) -> String {
        iso.replacingOccurrences(of: "%@", with: column) + " AS " + name
    }

    private static func article(_ row: PostgresRow, prefix: String = "") -> ResearchArticle? {
        guard let id = row.string(prefix + "id"), let role = row.string(prefix + "role"),
            let content = row.string(prefix + "content"), let created = row.string(prefix + "created_iso")
        else { return nil }
        return ResearchArticle(
            id: id, role: role, content: content, createdAt: created, provider: row.string(prefix + "provider"))
    }

    /// The turn of `clientMessageId`, if this user sent it before.
    func turn(userId: String, clientMessageId: String) async throws -> Turn? {
        let rows = try await db.query(
            """
            SELECT q.id, q.role, q.content, q.provider, \(unescaped: Self.isoColumn("q.created_at", as: "created_iso")),
                   a.id AS a_id, a.role AS a_role, a.content AS a_content, a.provider AS a_provider,
                   \(unescaped: Self.isoColumn("a.created_at", as: "a_created_iso")),
                   c.id AS conversation_id, c.ticker, c.derivation_id, c.status
            FROM research.messages q
            JOIN research.conversations c ON c.id = q.conversation_id
            LEFT JOIN research.messages a ON a.reply_to = q.id
            WHERE q.user_id = \(userId) AND q.client_message_id = \(clientMessageId)
            """)
        guard let row = rows.first, let question = Self.article(row), let conversation = row.string("conversation_id")
        else { return nil }
        return Turn(
            conversationId: conversation, ticker: row.string("ticker"), derivationId: row.string("derivation_id"),
            question: question, answer: Self.article(row, prefix: "a_"),
            status: ResearchStatus(rawValue: row.string("status") ?? "") ?? .error)
    }

    /// Whether `conversationId` exists and belongs to `userId`, with its Derivation conversation.
    func owned(userId: String, conversationId: String) async throws -> (found: Bool, derivationId: String?) {
        let rows = try await db.query(
            "SELECT derivation_id FROM research.conversations WHERE id = \(conversationId) AND user_id = \(userId)")
        return (!rows.isEmpty, rows.first?.string("derivation_id"))
    }

    /// Stores the user's message (creating the conversation when `conversationId` is nil) unless this client
    /// message id is stored already; answers the stored turn either way.
    func ask(
        userId: String, conversationId: String?, message: String, ticker: String?, clientMessageId: String
    ) async throws -> Turn? {
        let conversation = conversationId ?? "rc_" + Digest.randomHex(bytes: 12)
        try await db.transaction { connection in
            if conversationId == nil {
                try await connection.execute(
                    """
                    INSERT INTO research.conversations (id, user_id, title, ticker, status)
                    VALUES (\(conversation), \(userId), \(Self.title(message, ticker: ticker)), \(ticker), 'running')
                    """)
            } else {
                try await connection.execute(
                    """
                    UPDATE research.conversations SET status = 'running', updated_at = now()
                    WHERE id = \(conversation) AND user_id = \(userId)
                    """)
            }
            let inserted = try await connection.execute(
                """
                INSERT INTO research.messages (id, conversation_id, user_id, role, content, client_message_id)
                VALUES (\("rm_" + Digest.randomHex(bytes: 12)), \(conversation), \(userId), 'user', \(message),
                        \(clientMessageId))
                ON CONFLICT (user_id, client_message_id) WHERE client_message_id IS NOT NULL DO NOTHING
                """)
            // A concurrent duplicate stored this message first: the conversation made for it here is not needed.
            if inserted == 0 && conversationId == nil {
                try await connection.execute("DELETE FROM research.conversations WHERE id = \(conversation)")
            }
        }
        return try await turn(userId: userId, clientMessageId: clientMessageId)
    }

    /// Stores the reply to `questionId` (a concurrent duplicate keeps the first) and the conversation's status.
    func answer(
        userId: String, conversationId: String, questionId: String, content: String, provider: String,
        status: ResearchStatus, derivationId: String?
    ) async throws {
        try await db.transaction { connection in
            try await connection.execute(
                """
                INSERT INTO research.messages (id, conversation_id, user_id, role, content, provider, reply_to)
                VALUES (\("rm_" + Digest.randomHex(bytes: 12)), \(conversationId), \(userId), 'assistant', \(content),
                        \(provider), \(questionId))
                ON CONFLICT (reply_to) WHERE reply_to IS NOT NULL DO NOTHING
                """)
            try await connection.execute(
                """
                UPDATE research.conversations SET status = \(status.rawValue), updated_at = now(),
                    derivation_id = COALESCE(\(derivationId), derivation_id)
                WHERE id = \(conversationId)
                """)
        }
    }

    /// The user's conversations, most recently active first, with the last turn as preview.
    func threads(userId: String, limit: Int = 50) async throws -> [AgentThreadSummary] {
        try await db.query(
            """
            SELECT c.id, c.title, c.status, \(unescaped: Self.isoColumn("c.created_at", as: "created_iso")),
                   \(unescaped: Self.isoColumn("c.updated_at", as: "updated_iso")),
                   (SELECT content FROM research.messages m WHERE m.conversation_id = c.id
                    ORDER BY m.created_at DESC LIMIT 1) AS preview
            FROM research.conversations c WHERE c.user_id = \(userId)
            ORDER BY c.updated_at DESC LIMIT \(limit)
            """
        ).compactMap(Self.summary)
    }

    /// One conversation with its turns, oldest first; nil when it is not this user's.
    func thread(userId: String, conversationId: String) async throws -> AgentThreadSummary? {
        guard
            var summary = try await db.query(
                """
                SELECT c.id, c.title, c.status, \(unescaped: Self.isoColumn("c.created_at", as: "created_iso")),
                       \(unescaped: Self.isoColumn("c.updated_at", as: "updated_iso")),
                       (SELECT content FROM research.messages m WHERE m.conversation_id = c.id
                        ORDER BY m.created_at DESC LIMIT 1) AS preview
                FROM research.conversations c WHERE c.id = \(conversationId) AND c.user_id = \(userId)
                """
            ).first.flatMap(Self.summary)
        else { return nil }
        summary.messages = try await db.query(
            """
            SELECT id, role, content, provider, \(unescaped: Self.isoColumn("created_at", as: "created_iso"))
            FROM research.messages WHERE conversation_id = \(conversationId) ORDER BY created_at, id
            """
        ).compactMap { Self.article($0) }
        return summary
    }

    private static func summary(_ row: PostgresRow) -> AgentThreadSummary? {
        guard let id = row.string("id"), let title = row.string("title") else { return nil }
        return AgentThreadSummary(
            id: id, title: title, createdAt: row.string("created_iso") ?? "",
            updatedAt: row.string("updated_iso") ?? "",
            preview: String((row.string("preview") ?? "").prefix(180)),
            status: ResearchStatus(rawValue: row.string("status") ?? "") ?? .error)
    }

    /// `$TICKER research`, else the message's first line (72 characters).
    static func title(_ message: String, ticker: String?) -> String {
        if let ticker { return "$\(ticker) research" }
        let first = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = first.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? "Research" : String(trimmed.prefix(72))
    }
}
