import Contracts
import HTTPServer
import ResearchCore
import Runtime

/// `POST /v1/memo/synthesis {ticker}`: the memo that reads the value chain, the demand pulse, the sector's environment
/// brief and the ratios together, written by the Research service. A cached memo (24 h) is free and needs no
/// identity; a miss is written only for a caller with a session or `X-Device-Id` and free quota left (kind
/// `synthesis`, counted once for the caller whose request started the write), else 400/402. The write is bounded by
/// its own budget (`SYNTHESIS_BUDGET_MS`).
struct SynthesisRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    let generateBudget: Duration
    let metering: LayerMetering

    static let identityRequired = "X-Device-Id header (or a bearer session) required to generate a memo"

    var route: Route {
        Route("POST", "/v1/memo/synthesis", auth: .optional) { context in
            struct Body: Decodable { let ticker: String }
            guard
                let ticker = JSONBody.strict(Body.self, from: context.request.body).flatMap({
                    ValueChain.ticker($0.ticker)
                })
            else { return .error(400, "invalid ticker") }
            return await metering.cacheFirst(
                marker: "X-Synthesis", kind: "synthesis", identityRequired: Self.identityRequired, context
            ) { await ask(ticker, generate: $0, context) }
        }
    }

    private func ask(_ ticker: String, generate: Bool, _ context: RouteContext) async -> HTTPResponse {
        await caller.call(
            .research, SynthesisCommand.name, key: ticker,
            command: SynthesisCommand(ticker: ticker, generate: generate),
            budget: generate ? generateBudget : budget, requestId: context.requestId)
    }
}
