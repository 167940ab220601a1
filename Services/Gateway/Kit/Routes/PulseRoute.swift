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
    let metering: LayerMetering

    static let identityRequired = "X-Device-Id header (or a bearer session) required to generate a pulse"

    var route: Route {
        Route("GET", "/v1/pulse/:ticker", auth: .optional) { context in
            guard let ticker = context.parameters["ticker"].flatMap(ValueChain.ticker) else {
                return .error(400, "invalid ticker")
            }
            return await metering.cacheFirst(
                marker: "X-Pulse", kind: "pulse", identityRequired: Self.identityRequired, context
            ) { await ask(ticker, generate: $0, context) }
        }
    }

    private func ask(_ ticker: String, generate: Bool, _ context: RouteContext) async -> HTTPResponse {
        await caller.call(
            .research, PulseCommand.name, key: ticker, command: PulseCommand(ticker: ticker, generate: generate),
            budget: generate ? generateBudget : budget, requestId: context.requestId)
    }
}
