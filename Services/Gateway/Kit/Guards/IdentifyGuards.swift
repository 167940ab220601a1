import Contracts
import Crypto
import Foundation
import HTTPServer
import MoneyCore
import Redis
import Runtime

/// The identify route's guards, in the contract's order after the global limiter and optional auth
/// (docs/COMPATIBILITY.md#identify-guards): abuse (> 30 attempts in a sliding minute per user or IP), the identify
/// buckets (10/min, 60/hour, counted before checking, with `X-Identify-RateLimit-*` headers from here on), the
/// anonymous `X-Device-Id` rule, and the free-tier quota (50 lifetime identifies per identity).
struct IdentifyGuards: Sendable {
    static let abuseLimit = 30
    static let minuteLimit: Int64 = 10
    static let hourLimit: Int64 = 60

    let redis: RedisClient
    let users: UserStore
    /// Bounds the quota lookup.
    let lookups: LookupDeadline
    /// False only in dev benchmarks (`GATEWAY_LIMITS=off`): then only the device-id rule applies.
    let limitsEnabled: Bool
    /// Where abuse trips are written (docs/COMPATIBILITY.md#identify-guards), once per sliding window per key set.
    let adminLog: AdminLog
    let logger: Logger

    /// Slides a one-minute window per key with the server's clock and returns the largest count.
    private static let slidingScript = """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local window = tonumber(ARGV[1])
        local most = 0
        for _, key in ipairs(KEYS) do
          redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
          redis.call('ZADD', key, now, ARGV[2])
          redis.call('PEXPIRE', key, window)
          local n = redis.call('ZCARD', key)
          if n > most then most = n end
        end
        return most
        """

    func check(_ caller: Caller, _ head: HTTPRequestHead) async -> (reject: HTTPResponse?, headers: [(String, String)])
    {
        let userId = caller.session?.userId
        guard limitsEnabled else {
            let anonymous = userId == nil && caller.deviceId == nil
            return (anonymous ? .error(.deviceIdRequired) : nil, [])
        }
        // 3. Abuse.
        var abuseKeys = ["mapvest:abuse:ip:" + caller.clientIP]
        if let userId { abuseKeys.append("mapvest:abuse:u:" + userId) }
        if case .integer(let attempts)? = try? await redis.eval(
            Self.slidingScript, keys: abuseKeys, args: ["60000", Digest.randomHex(bytes: 8)]),
            attempts > Self.abuseLimit
        {
            logger.warning("suspected_abuse", [LogKeys.tag: "suspected_abuse", LogKeys.route: "/v1/identify"])
            // The first rejected attempt of a burst is logged; the rest of the burst adds nothing.
            if attempts == Self.abuseLimit + 1 {
                do {
                    try await adminLog.append(
                        kind: "suspected_abuse", actor: nil, subject: userId ?? "ip:" + caller.clientIP,
                        detail: ["route": "POST /v1/identify", "ip": caller.clientIP, "attempts": String(attempts)])
                } catch {
                    logger.warning(
                        "admin log unavailable; abuse trip not recorded", [LogKeys.error: .string("\(error)")])
                }
            }
            return (.error(429, "suspected abuse — try again later"), [])
        }

        // 4. Identify buckets, keyed by user else IP.
        let bucket = userId.map { "u:" + $0 } ?? "ip:" + caller.clientIP
        var headers: [(String, String)] = []
        do {
            let minute = try await redis.fixedWindowHit(key: "mapvest:rl:identify:m:" + bucket, window: .seconds(60))
            let hour = try await redis.fixedWindowHit(key: "mapvest:rl:identify:h:" + bucket, window: .seconds(3600))
            let now = Int(Date().timeIntervalSince1970)
            headers = [
                ("X-Identify-RateLimit-Minute", String(Self.minuteLimit)),
                ("X-Identify-RateLimit-Minute-Remaining", String(max(0, Self.minuteLimit - minute.count))),
                ("X-Identify-RateLimit-Minute-Reset", String(now + Int((minute.resetInMs + 999) / 1000))),
                ("X-Identify-RateLimit-Hour", String(Self.hourLimit)),
                ("X-Identify-RateLimit-Hour-Remaining", String(max(0, Self.hourLimit - hour.count))),
                ("X-Identify-RateLimit-Hour-Reset", String(now + Int((hour.resetInMs + 999) / 1000))),
            ]
            if minute.count > Self.minuteLimit || hour.count > Self.hourLimit {
                return (.error(429, "identify rate limit exceeded"), headers)
            }
        } catch {
            logger.warning("identify buckets unavailable; failing open", [LogKeys.error: "\(error)"])
        }

        // 5. Anonymous callers need a device id.
        if userId == nil && caller.deviceId == nil {
            return (.error(.deviceIdRequired), headers)
        }

        // 6. Free-tier quota: the entitlement `GET /v1/entitlements` reports.
        do {
            let users = self.users
            let state = try await lookups.run {
                try await users.entitlement(userId: userId, deviceId: caller.deviceId)
            }
            if !state.canGenerate { return (Self.quotaExceeded(remaining: state.remaining), headers) }
        } catch {
            logger.warning("quota store unavailable; failing open", [LogKeys.error: "\(error)"])
        }
        return (nil, headers)
    }

    /// The paywall answer (docs/COMPATIBILITY.md#identify-guards).
    static func quotaExceeded(remaining: Int) -> HTTPResponse {
        .json(
            402,
            QuotaExceeded(
                error: "generation quota exceeded", code: "quota_exceeded", remaining: remaining,
                limit: EntitlementState.freeLimit, priceUsd: EntitlementState.priceUsd,
                interval: EntitlementState.interval))
    }

    struct QuotaExceeded: Codable {
        let error: String
        let code: String
        let remaining: Int
        let limit: Int
        let priceUsd: Double
        let interval: String
    }
}
