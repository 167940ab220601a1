import Contracts
import ExpoPush
import Postgres
import Redis
import Runtime

/// The PushDispatcher's settings, from environment variables (defaults in parentheses).
public struct PushConfiguration: Sendable {
    /// Production floor of a delivery lease: longer than Expo's three-attempt retry window
    /// (docs/COMPATIBILITY.md#push-delivery).
    static let minimumLease: Duration = .seconds(90)
    /// Expo's batch size and the largest claim.
    public static let batchSize = 100

    /// `POSTGRES_URL`; `POSTGRES_POOL_SIZE` (8) for route commands, receipts and maintenance. Handoffs use their own
    /// pool of `maxConcurrentHandoffs` reserved connections. Direct or SESSION-mode pooler only: handoffs hold
    /// session-level advisory locks, which a transaction-mode PgBouncer would hand to another client.
    public var postgres: PostgresSettings
    /// `REDIS_URL` and `REDIS_POOL_SIZE` (4): the shared Expo pace.
    public var redis: RedisSettings
    /// `PUSH_SCHEMA` (push): the owner schema. Only tests change it.
    public var schema: String
    /// `PUSH_MAX_CONCURRENT_HANDOFFS` (4, 1…32): batches claimed and handed off at once per process, FIFO.
    public var maxConcurrentHandoffs: Int
    /// `PUSH_LEASE_MS` (90 000): a delivery claim's lease, counted again from advisory-lock acquisition. Below
    /// 90 s only with `MAPVEST_ENV=dev` (tests).
    public var lease: Duration
    /// `PUSH_REQUESTS_TOPIC` (mapvest.push.requests.v1) and `PUSH_DISPATCH_GROUP` (mapvest.push.dispatch): where
    /// notification requests are consumed. The route commands use `mapvest.push.commands.v1` in group `mapvest.push`.
    public var requestsTopic: String
    public var dispatchGroup: String
    /// `PUSH_REQUEST_MAX_IN_FLIGHT` (32): notification requests handled at once per process.
    public var requestMaxInFlight: Int
    /// `COMMAND_MAX_IN_FLIGHT` (64): route commands handled at once.
    public var commandMaxInFlight: Int
    /// `EXPO_BASE_URL`, `EXPO_ACCESS_TOKEN`, `EXPO_TIMEOUT_MS` (15 000), `EXPO_RETRY_BASE_MS` (200).
    public var expo: ExpoPushClient.Configuration
    /// Whether messages may leave: always in dev; in production only with `EXPO_PUSH_SECURITY_ENABLED=1` and a
    /// non-empty `EXPO_ACCESS_TOKEN` (the production gate). Closed → nothing is sent and every message fails.
    public var dispatchEnabled: Bool
    /// Why the gate is closed, for the startup log line.
    var gateReason: String?
    /// Whether maintenance fetches Expo's receipts: with the gate open, except in dev without `EXPO_ACCESS_TOKEN`
    /// (a laptop's stack: no warning every pass on a machine that cannot reach Expo).
    public var pollsReceipts: Bool
    /// `EXPO_PACE_PER_SECOND` (600): notifications/s across all replicas; 0 = unpaced (benchmarks).
    public var pacePerSecond: Int
    /// `EXPO_PACE_KEY` (mapvest:push:expo-pace): the Redis bucket every replica of one Expo project shares.
    public var paceKey: String
    /// `EXPO_RECEIPT_DELAY_MS` (15 min): how long after a handoff its receipts are fetched.
    public var receiptDelay: Duration
    /// `PUSH_MAINTENANCE_INTERVAL_MS` (30 000): receipt polling and expired-lease sweeping.
    var maintenanceInterval: Duration
    /// `PUSH_ROLES` (`commands,dispatch`): which parts this replica runs — the `/v1/push/*` commands, the delivery of
    /// notification requests, or both (maintenance always runs).
    public var servesCommands: Bool
    public var dispatches: Bool
    /// `ENABLE_PUSH_SCHEDULER=1`: each location heartbeat is handed to Briefs' movement scheduler (`briefs.device.fix.v1`).
    var schedulerEnabled: Bool

    public init(_ env: Environment) {
        postgres = PostgresSettings(env, minimumPoolSize: 2)
        redis = RedisSettings(env, defaultPoolSize: 4)
        schema = env.get("PUSH_SCHEMA", default: "push")
        maxConcurrentHandoffs = min(32, max(1, env.get("PUSH_MAX_CONCURRENT_HANDOFFS", default: 4)))
        let lease = env.milliseconds("PUSH_LEASE_MS", default: Self.minimumLease)
        self.lease = env.isDevelopment ? max(.milliseconds(200), lease) : max(Self.minimumLease, lease)
        requestsTopic = env.get("PUSH_REQUESTS_TOPIC", default: Topics.pushRequests)
        dispatchGroup = env.get("PUSH_DISPATCH_GROUP", default: "mapvest.push.dispatch")
        requestMaxInFlight = max(1, env.get("PUSH_REQUEST_MAX_IN_FLIGHT", default: 32))
        commandMaxInFlight = max(1, env.get("COMMAND_MAX_IN_FLIGHT", default: 64))
        let token = env.get("EXPO_ACCESS_TOKEN")
        expo = ExpoPushClient.Configuration(
            baseURL: env.get("EXPO_BASE_URL", default: "https://exp.host"), accessToken: token,
            timeout: env.milliseconds("EXPO_TIMEOUT_MS", default: .seconds(15)),
            retryBase: env.milliseconds("EXPO_RETRY_BASE_MS", default: .milliseconds(200)))
        (dispatchEnabled, gateReason) = Self.gate(
            isDevelopment: env.isDevelopment, securityEnabled: env.get("EXPO_PUSH_SECURITY_ENABLED") == "1",
            accessToken: token)
        pollsReceipts = dispatchEnabled && !(env.isDevelopment && (token ?? "").isEmpty)
        pacePerSecond = max(0, env.get("EXPO_PACE_PER_SECOND", default: 600))
        paceKey = env.get("EXPO_PACE_KEY", default: "mapvest:push:expo-pace")
        receiptDelay = env.milliseconds("EXPO_RECEIPT_DELAY_MS", default: .seconds(15 * 60))
        maintenanceInterval = max(
            .milliseconds(50), env.milliseconds("PUSH_MAINTENANCE_INTERVAL_MS", default: .seconds(30)))
        schedulerEnabled = env.flag("ENABLE_PUSH_SCHEDULER")
        let roles = Set(
            env.get("PUSH_ROLES", default: "commands,dispatch").split(separator: ",").map {
                String($0.filter { !$0.isWhitespace }).lowercased()
            })
        servesCommands = roles.contains("commands")
        dispatches = roles.contains("dispatch")
    }

    /// The production gate (docs/decisions/0028-push-ownership-and-delivery.md): open in dev; in production only with
    /// both switches.
    public static func gate(isDevelopment: Bool, securityEnabled: Bool, accessToken: String?) -> (Bool, String?) {
        if isDevelopment { return (true, nil) }
        if !securityEnabled { return (false, "EXPO_PUSH_SECURITY_ENABLED is not 1") }
        if (accessToken ?? "").isEmpty { return (false, "EXPO_ACCESS_TOKEN is empty") }
        return (true, nil)
    }
}
