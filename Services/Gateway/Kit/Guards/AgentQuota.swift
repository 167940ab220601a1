import Contracts
import HTTPServer
import MoneyCore
import Runtime

/// The research chat's checks before the body is read, and its usage count once a turn was answered.
protocol GenerationQuota: Sendable {
    /// 400 without a session or `X-Device-Id`, 402 when the free tier is spent; nil to go on.
    func check(_ caller: Caller) async -> HTTPResponse?
    /// Counts one answered generation of `kind` against the caller's free tier.
    func record(userId: String?, deviceId: String?, kind: String) async throws
}

/// The free-tier quota as the identify guard reads it (the caller's entitlement, the one `GET /v1/entitlements` reports),
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
            let state = try await lookups.run {
                try await users.entitlement(userId: userId, deviceId: caller.deviceId)
            }
            if !state.canGenerate { return IdentifyGuards.quotaExceeded(remaining: state.remaining) }
        } catch {
            logger.warning("quota store unavailable; failing open", [LogKeys.error: "\(error)"])
        }
        return nil
    }

    func record(userId: String?, deviceId: String?, kind: String) async throws {
        _ = try await users.countUsage(userId: userId, deviceId: deviceId, kind: kind)
    }
}
