import Contracts
import HTTPServer
import MoneyCore
import Runtime

/// `GET /v1/entitlements` (optional auth): the plan and the free tier left for the signed-in user, else for the
/// anonymous `X-Device-Id`, else a full unspent tier — the numbers the identify quota guard enforces.
struct EntitlementRoutes: Sendable {
    let entitlements: any EntitlementSource
    let lookups: LookupDeadline
    let logger: Logger

    var routes: [Route] {
        [
            Route("GET", "/v1/entitlements", auth: .optional) { context in
                let userId = context.caller.session?.userId
                let deviceId = context.caller.deviceId
                let entitlements = self.entitlements
                do {
                    let state = try await lookups.run {
                        try await entitlements.entitlement(userId: userId, deviceId: deviceId)
                    }
                    return .json(200, state)
                } catch {
                    logger.error("entitlement lookup failed", [LogKeys.error: .string("\(error)")])
                    return .error(.internalError)
                }
            }
        ]
    }
}
