import Contracts
import HTTPServer
import ResearchCore
import Runtime

/// `GET /v1/pulse/{ticker}`: is the money upstream of a company growing, answered by the Research service. A cached
/// pulse (24 h) is free and needs no identity; a miss is built only for a caller with a session or `X-Device-Id` and
/// free quota left (kind `pulse`, counted once for the caller whose request started the build), else 400/402.
struct PulseRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    let generateBudget: Duration
    let quota: any GenerationQuota
    let logger: Logger

    static let identityRequired = "X-Device-Id header (or a bearer session) required to generate a pulse"

    var route: Route {
        Route("GET", "/v1/pulse/:ticker", auth: .optional) { context in
            guard let ticker = context.parameters["ticker"].flatMap(ValueChain.ticker) else {
                return .error(400, "invalid ticker")
            }
            let first = await ask(ticker, generate: false, context)
            guard GraphRoute.header(first, "X-Pulse") == "miss" else { return first }
            let who = context.caller
            guard who.session != nil || who.deviceId != nil else { return .error(400, Self.identityRequired) }
            if let refused = await quota.check(who) { return refused }
            let built = await ask(ticker, generate: true, context)
            await LayerMetering(quota: quota, logger: logger).charge(built, kind: "pulse", context)
            return LayerMetering.clean(built)
        }
    }

    private func ask(_ ticker: String, generate: Bool, _ context: RouteContext) async -> HTTPResponse {
        await caller.call(
            .research, PulseCommand.name, key: ticker, command: PulseCommand(ticker: ticker, generate: generate),
            budget: generate ? generateBudget : budget, requestId: context.requestId)
    }
}
