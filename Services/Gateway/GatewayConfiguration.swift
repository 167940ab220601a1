import Foundation
import Runtime

/// The gateway's settings, from environment variables (defaults in parentheses).
struct GatewayConfiguration: Sendable {
    /// `PORT` (3001): the public HTTP port.
    var port: Int
    /// `HOST` (0.0.0.0).
    var host: String
    /// `HTTP_THREADS` (2): libmicrohttpd polling threads.
    var httpThreads: Int
    /// `GATEWAY_INSTANCE_ID` (`<hostname>-<port>`): names this replica's reply topic; keep it stable per replica.
    var instanceId: String
    /// `GATEWAY_MAX_IN_FLIGHT` (2048): requests waiting on Kafka replies at once; over it → 503.
    var maxInFlight: Int
    /// `REDIS_URL` (redis://127.0.0.1:6379) and `REDIS_POOL_SIZE` (16).
    var redisURL: String
    var redisPoolSize: Int
    /// `PHOTO_TTL_MS` (60 000): how long a claim-checked photo lives in Redis.
    var photoTTL: Duration
    /// `RAILWAY_GIT_COMMIT_SHA` (`dev`): the version `/v1/config` reports.
    var version: String
    var liveScan: Bool
    var adminLogs: Bool

    init(_ env: Environment) {
        port = env.get("PORT", default: 3001)
        host = env.get("HOST", default: "0.0.0.0")
        httpThreads = max(1, env.get("HTTP_THREADS", default: 2))
        let host = ProcessInfo.processInfo.hostName
        instanceId = Self.sanitize(env.get("GATEWAY_INSTANCE_ID") ?? "\(host)-\(port)")
        maxInFlight = max(1, env.get("GATEWAY_MAX_IN_FLIGHT", default: 2048))
        redisURL = env.get("REDIS_URL", default: "redis://127.0.0.1:6379")
        redisPoolSize = max(1, env.get("REDIS_POOL_SIZE", default: 16))
        photoTTL = env.milliseconds("PHOTO_TTL_MS", default: .seconds(60))
        version = env.get("RAILWAY_GIT_COMMIT_SHA", default: "dev")
        liveScan = env.get("ENABLE_LIVE_SCAN") == "1"
        adminLogs = env.get("ENABLE_ADMIN_LOGS") == "1"
    }

    /// Kafka topic names allow `[a-zA-Z0-9._-]`.
    static func sanitize(_ s: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let cleaned = String(s.map { allowed.contains($0) ? $0 : "-" }.prefix(120))
        return cleaned.isEmpty ? "gateway" : cleaned
    }
}

/// Time budgets per route (DECISIONS.md): identify 30 s, nearby and rating 10 s, everything else 5 s.
enum RouteBudget {
    static let identify: Duration = .seconds(30)
    static let nearby: Duration = .seconds(10)
    static let rating: Duration = .seconds(10)
    static let standard: Duration = .seconds(5)
}
