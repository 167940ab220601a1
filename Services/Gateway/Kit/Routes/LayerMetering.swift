import HTTPServer
import Runtime

/// Charging a layered-memo build (graph, pulse, environment, synthesis): only the caller whose request started it, and only when it answered
/// 200 (the Research service marks that reply `X-Research-Turn: new`; callers that shared the build see `replayed`).
/// A usage write that fails is logged, never the caller's problem.
struct LayerMetering: Sendable {
    let quota: any GenerationQuota
    let logger: Logger

    /// The response without the Research service's markers (`X-Pulse`, `X-Environment`, `X-Synthesis`,
    /// `X-Research-Turn`).
    static func clean(_ response: HTTPResponse) -> HTTPResponse {
        var copy = response
        copy.headers.removeAll {
            ["x-pulse", "x-environment", "x-synthesis", "x-research-turn"].contains($0.0.lowercased())
        }
        return copy
    }

    /// The cache-first flow of pulse, environment and synthesis: the cached answer (the service's `marker` header is
    /// not `miss`) is free and needs no identity; a miss is built only for a caller with a session or `X-Device-Id`
    /// (else 400 `identityRequired`) and free quota (else 402), and charged as `kind` to the caller whose request
    /// started the build. `ask(generate)` sends the service's command.
    func cacheFirst(
        marker: String, kind: String, identityRequired: String, _ context: RouteContext,
        ask: (_ generate: Bool) async -> HTTPResponse
    ) async -> HTTPResponse {
        let first = await ask(false)
        guard GraphRoute.header(first, marker) == "miss" else { return first }
        let who = context.caller
        guard who.session != nil || who.deviceId != nil else { return .error(400, identityRequired) }
        if let refused = await quota.check(who) { return refused }
        let built = await ask(true)
        await charge(built, kind: kind, context)
        return Self.clean(built)
    }

    func charge(_ built: HTTPResponse, kind: String, _ context: RouteContext) async {
        guard built.status == 200, GraphRoute.header(built, "X-Research-Turn") == "new" else { return }
        let who = context.caller
        do {
            try await quota.record(userId: who.session?.userId, deviceId: who.deviceId, kind: kind)
        } catch {
            logger.warning(
                "usage not recorded", [LogKeys.requestId: .string(context.requestId), LogKeys.error: "\(error)"])
        }
    }
}
