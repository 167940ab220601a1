import Contracts
import HTTPServer
import Runtime

/// The research chat's checks before the body is read, and its usage count once a turn was answered.
protocol GenerationQuota: Sendable {
    /// 400 without a session or `X-Device-Id`, 402 when the free tier is spent; nil to go on.
    func check(_ caller: Caller) async -> HTTPResponse?
    /// Counts one answered generation of `kind` against the caller's free tier.
    func record(userId: String?, deviceId: String?, kind: String) async throws
}

/// The free-tier quota as the identify guard reads it (the user store's usage and unlimited rules, 50 per identity),
/// for routes that generate without the identify buckets: a guest needs `X-Device-Id`; a store failure fails open.
struct AgentQuota: GenerationQuota {
    let users: UserStore
    let lookups: LookupDeadline
    /// False only in dev benchmarks (`GATEWAY_LIMITS=off`): then only the device-id rule applies.
    let limitsEnabled: Bool
    let logger: Logger

    func check(_ caller: Caller) async -> HTTPResponse? {
        let userId = caller.session?.userId
        if userId == nil && caller.deviceId == nil { return .error(.deviceIdRequired) }
        guard limitsEnabled else { return nil }
        do {
            let users = self.users
            let used = try await lookups.run { () async throws -> Int? in
                let unlimited = try await userId.asyncMap { try await users.isUnlimited(userId: $0) } ?? false
                return unlimited ? nil : try await users.usage(userId: userId, deviceId: caller.deviceId)
            }
            if let used, used >= IdentifyGuards.freeLimit {
                return .json(
                    402,
                    IdentifyGuards.QuotaExceeded(
                        error: "generation quota exceeded", code: "quota_exceeded",
                        remaining: max(0, IdentifyGuards.freeLimit - used), limit: IdentifyGuards.freeLimit,
                        priceUsd: 19.99, interval: "month"))
            }
        } catch {
            logger.warning("quota store unavailable; failing open", [LogKeys.error: "\(error)"])
        }
        return nil
    }

    func record(userId: String?, deviceId: String?, kind: String) async throws {
        try await users.recordUsage(userId: userId, deviceId: deviceId, kind: kind)
    }
}
