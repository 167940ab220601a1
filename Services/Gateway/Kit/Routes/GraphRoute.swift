import Contracts
import HTTPServer
import ResearchCore
import Runtime

/// `GET /v1/graph/{ticker}`: the company's value chain, answered by the Research service. A stored graph that is
/// fresh is free and needs no identity; a miss is generated only for a caller with a session or `X-Device-Id` and
/// free quota left (kind `graph`, counted once the generation found edges), else a stored stale set is served, else
/// 400/402. An extraction that fails serves the stale set too.
struct GraphRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    let generateBudget: Duration
    let quota: any GenerationQuota
    let logger: Logger

    static let identityRequired = "X-Device-Id header (or a bearer session) required to generate a graph"

    var route: Route {
        Route("GET", "/v1/graph/:ticker", auth: .optional) { context in
            guard let ticker = context.parameters["ticker"].flatMap(ValueChain.ticker) else {
                return .error(400, "invalid ticker")
            }
            let first = await ask(ticker, generate: false, context)
            guard let state = Self.header(first, "X-Graph") else { return first }
            let stale = state == "stale" ? Self.clean(first) : nil
            let who = context.caller
            guard who.session != nil || who.deviceId != nil else {
                return stale ?? .error(400, Self.identityRequired)
            }
            if let refused = await quota.check(who) { return stale ?? refused }
            let generated = await ask(ticker, generate: true, context)
            if generated.status >= 500, let stale { return stale }
            await LayerMetering(quota: quota, logger: logger).charge(generated, kind: "graph", context)
            return Self.clean(generated)
        }
    }

    private func ask(_ ticker: String, generate: Bool, _ context: RouteContext) async -> HTTPResponse {
        await caller.call(
            .research, GraphCommand.name, key: ticker, command: GraphCommand(ticker: ticker, generate: generate),
            budget: generate ? generateBudget : budget, requestId: context.requestId)
    }

    static func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Without the service's markers.
    static func clean(_ response: HTTPResponse) -> HTTPResponse {
        var copy = response
        copy.headers.removeAll { ["x-graph", "x-research-turn"].contains($0.0.lowercased()) }
        return copy
    }
}
