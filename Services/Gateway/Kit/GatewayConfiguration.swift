import Foundation
import HTTPClient
import Messaging
import Postgres
import Redis
import Runtime

/// The gateway's settings, from environment variables (defaults in parentheses).
package struct GatewayConfiguration: Sendable {
    /// `PORT` (3001): the public HTTP port.
    package var port: Int
    /// `HOST` (0.0.0.0).
    var host: String
    /// `HTTP_THREADS` (2): libmicrohttpd polling threads.
    var httpThreads: Int
    /// `HTTP_HEAD_TIMEOUT_MS` (10 000): total time a request head may take to arrive.
    var headTimeout: Duration
    /// `HTTP_MAX_CONNECTIONS_PER_CLIENT` (256; 0 = no cap): concurrent connections one client address may hold.
    var connectionsPerClient: Int
    /// `GATEWAY_INSTANCE_ID` (`<hostname>-<port>`): names this replica's reply topic; keep it stable per replica.
    package var instanceId: String
    /// `GATEWAY_MAX_IN_FLIGHT` (2048): requests waiting on Kafka replies at once; over it → 503.
    package var maxInFlight: Int
    /// `GATEWAY_QUEUE_TARGET_MS` (25): a service whose replies report more queueing than this gets fewer requests
    /// in flight from this gateway (the excess → 503 with `Retry-After`).
    package var queueTarget: Duration
    /// `REDIS_URL` and `REDIS_POOL_SIZE` (16), read by `RedisSettings`.
    package var redis: RedisSettings
    /// `PHOTO_TTL_MS` (60 000): how long a claim-checked photo lives in Redis.
    var photoTTL: Duration
    /// `RAILWAY_GIT_COMMIT_SHA` (`dev`): the version `/v1/config` reports.
    var version: String
    var liveScan: Bool
    var adminLogs: Bool
    var budgets: RouteBudgets
    /// `POSTGRES_URL` and `POSTGRES_POOL_SIZE` (8), read by `PostgresSettings`.
    package var postgres: PostgresSettings
    /// `SESSION_SIGNING_KEY` (≥ 32 bytes; required outside dev) and `IOS_MAPS_TOKEN_SIGNING_KEY` (defaults to it).
    var sessionKey: [UInt8]
    var mapsKey: [UInt8]
    /// `TRUSTED_PROXY_HOPS` (0): how many proxies in front of us append to `X-Forwarded-For`.
    var trustedProxyHops: Int
    /// `ADMIN_EMAILS` (comma-separated) get the admin scope; `FREE_FOREVER_EMAIL_DOMAINS` get unlimited identifies.
    var adminEmails: Set<String>
    var freeForeverDomains: Set<String>
    /// `AUTH_RETURN_CODE=1` returns sign-in codes in responses; ignored in production.
    var returnCodes: Bool
    /// `PUBLIC_API_URL` (http://127.0.0.1:<port>): the base of magic links.
    var publicURL: String
    /// `GATEWAY_LIMITS=off` turns off the limiter, abuse guard, identify buckets and quota — for benchmarks in dev
    /// only; ignored in production.
    var limitsEnabled: Bool

    /// The key dev and tests share when `SESSION_SIGNING_KEY` is unset (never accepted in production).
    static let devSigningKey = "mapvest-dev-signing-key-not-for-production-use"

    package init(_ env: Environment) {
        port = env.get("PORT", default: 3001)
        host = env.get("HOST", default: "0.0.0.0")
        httpThreads = max(1, env.get("HTTP_THREADS", default: 2))
        headTimeout = max(.seconds(1), env.milliseconds("HTTP_HEAD_TIMEOUT_MS", default: .seconds(10)))
        connectionsPerClient = max(0, env.get("HTTP_MAX_CONNECTIONS_PER_CLIENT", default: 256))
        let host = ProcessInfo.processInfo.hostName
        instanceId = RequestReplyClient.sanitize(env.get("GATEWAY_INSTANCE_ID") ?? "\(host)-\(port)")
        maxInFlight = max(1, env.get("GATEWAY_MAX_IN_FLIGHT", default: 2048))
        queueTarget = env.milliseconds("GATEWAY_QUEUE_TARGET_MS", default: .milliseconds(25))
        redis = RedisSettings(env, defaultPoolSize: 16)
        photoTTL = env.milliseconds("PHOTO_TTL_MS", default: .seconds(60))
        version = env.get("RAILWAY_GIT_COMMIT_SHA", default: "dev")
        liveScan = env.get("ENABLE_LIVE_SCAN") == "1"
        adminLogs = env.get("ENABLE_ADMIN_LOGS") == "1"
        budgets = RouteBudgets(env)
        postgres = PostgresSettings(env)
        let key = env.get("SESSION_SIGNING_KEY") ?? (env.isDevelopment ? Self.devSigningKey : "")
        sessionKey = Array(key.utf8)
        mapsKey = env.get("IOS_MAPS_TOKEN_SIGNING_KEY").map { Array($0.utf8) } ?? sessionKey
        trustedProxyHops = max(0, env.get("TRUSTED_PROXY_HOPS", default: 0))
        let list = { (name: String) in
            Set(
                (env.get(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                    .filter { !$0.isEmpty })
        }
        adminEmails = list("ADMIN_EMAILS")
        freeForeverDomains = list("FREE_FOREVER_EMAIL_DOMAINS")
        returnCodes = env.isDevelopment && env.flag("AUTH_RETURN_CODE")
        publicURL = env.get("PUBLIC_API_URL", default: "http://127.0.0.1:\(port)")
        limitsEnabled = !(env.isDevelopment && env.get("GATEWAY_LIMITS") == "off")
        smtpURL = env.get("SMTP_URL")
        smtpFrom = env.get("SMTP_FROM", default: "Mapvest <no-reply@mapvest.app>")
        smtpUsername = env.get("SMTP_USERNAME")
        smtpPassword = env.get("SMTP_PASSWORD")
    }

    /// `SMTP_URL` (`smtp://host:587` with STARTTLS, or `smtps://host:465`), `SMTP_FROM`, `SMTP_USERNAME`,
    /// `SMTP_PASSWORD`: sign-in mail. Unset → the dev sink (which logs that a mail was sent, never its content).
    var smtpURL: String?
    var smtpFrom: String
    var smtpUsername: String?
    var smtpPassword: String?

    func mailSender(logger: Logger) -> any MailSender {
        guard let smtpURL else {
            logger.warning("SMTP_URL is not set: sign-in mail goes to the dev sink and is not delivered")
            return DevMailSink(logger: logger)
        }
        let loopback = smtpURL.contains("://127.0.0.1") || smtpURL.contains("://localhost")
        return SMTPMailSender(
            mailer: SMTPMailer(
                url: smtpURL, from: smtpFrom, username: smtpUsername, password: smtpPassword, requireTLS: !loopback))
    }

    /// Refuses to start without a strong signing key outside dev.
    package func validate() throws {
        guard sessionKey.count >= 32 else {
            throw ConfigurationError(key: "SESSION_SIGNING_KEY", reason: "must be at least 32 bytes")
        }
    }
}

/// Time budgets per route (docs/decisions/0003-deadlines-and-budgets.md): identify 30 s, nearby and rating 10 s,
/// everything else 5 s. `IDENTIFY_BUDGET_MS`, `NEARBY_BUDGET_MS`, `RATING_BUDGET_MS` and `DEFAULT_BUDGET_MS` override
/// them; the daily brief gets 30 s (`BRIEF_BUDGET_MS`) and a watchlist add 10 s (`WATCHLIST_ADD_BUDGET_MS`).
struct RouteBudgets: Sendable {
    var identify: Duration
    var nearby: Duration
    var rating: Duration
    var standard: Duration
    /// `GET /v1/watchlist/brief`: a model cascade of up to 20 s per model.
    var brief: Duration
    /// `POST /v1/watchlist/add`: a quote (3.5 s) then comparables (3.5 s).
    var watchlistAdd: Duration
    /// Research chat: Derivation, else OpenRouter's 25 s chain, plus storing the turn.
    var agent: Duration
    /// `POST /v1/memo/synthesis` on a miss: its layers within the first half, then a 30 s-a-model chain.
    var synthesis: Duration
    /// The gateway's own user, session and quota lookups (Postgres, Redis) in a request (`LOOKUP_BUDGET_MS`).
    var lookup: Duration

    init(_ env: Environment) {
        identify = env.milliseconds("IDENTIFY_BUDGET_MS", default: .seconds(30))
        nearby = env.milliseconds("NEARBY_BUDGET_MS", default: .seconds(10))
        rating = env.milliseconds("RATING_BUDGET_MS", default: .seconds(10))
        standard = env.milliseconds("DEFAULT_BUDGET_MS", default: .seconds(5))
        brief = env.milliseconds("BRIEF_BUDGET_MS", default: .seconds(30))
        watchlistAdd = env.milliseconds("WATCHLIST_ADD_BUDGET_MS", default: .seconds(10))
        agent = env.milliseconds("AGENT_BUDGET_MS", default: .seconds(30))
        synthesis = env.milliseconds("SYNTHESIS_BUDGET_MS", default: .seconds(60))
        lookup = env.milliseconds("LOOKUP_BUDGET_MS", default: .seconds(2))
    }
}
