import Contracts
import Foundation
import HTTPServer

/// The market-data surface: `GET /v1/market-data/capabilities`, `/v1/market-data/aggregates`,
/// `/v1/financials/ratios`, `/v1/market-events` and `/v1/options/{chain,contracts,contracts/:ticker,summary,bars}`. Validated here (`MarketDataInput`), answered by the Rating
/// service, which owns market data. All but capabilities pass the market-data limiter first.
struct MarketDataRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    /// The market-data limiter's guard; nil when limits are off.
    let limiter: MarketDataRateLimiter?

    var routes: [Route] {
        [
            Route("GET", "/v1/market-data/capabilities") { context in
                await send(MarketCapabilitiesCommand.name, key: "capabilities", MarketCapabilitiesCommand(), context)
            },
            limited("/v1/market-data/aggregates") { context in
                switch MarketDataInput.aggregates(context.request.head.query) {
                case .failure(let invalid): return .error(400, invalid.text)
                case .success(let command):
                    return await send(AggregatesCommand.name, key: command.symbol, command, context)
                }
            },
            limited("/v1/financials/ratios") { context in
                switch MarketDataInput.ratios(context.request.head.query) {
                case .failure(let invalid): return .error(400, invalid.text)
                case .success(let command):
                    return await send(FinancialRatiosCommand.name, key: command.ticker, command, context)
                }
            },
            limited("/v1/market-events") { context in
                await forward(MarketDataInput.events(context.request.head.query), MarketEventsCommand.name, context) {
                    $0.ticker ?? "events"
                }
            },
            limited("/v1/options/chain") { context in
                await forward(OptionsInput.chain(context.request.head.query), OptionsChainCommand.name, context) {
                    $0.underlying
                }
            },
            limited("/v1/options/contracts") { context in
                await forward(
                    OptionsInput.contracts(context.request.head.query), OptionContractsCommand.name, context
                ) { $0.underlying ?? $0.ticker ?? "contracts" }
            },
            limited("/v1/options/contracts/:ticker") { context in
                await forward(
                    OptionsInput.contract(context.parameters["ticker"]), OptionContractCommand.name, context
                ) { $0.ticker }
            },
            limited("/v1/options/summary") { context in
                await forward(OptionsInput.summary(context.request.head.query), OptionSummaryCommand.name, context) {
                    $0.underlying
                }
            },
            limited("/v1/options/bars") { context in
                await forward(OptionsInput.bars(context.request.head.query), OptionBarsCommand.name, context) {
                    $0.ticker
                }
            },
        ]
    }

    /// The command to Rating, or the 400 naming what is wrong.
    private func forward<C: Encodable & Sendable>(
        _ parsed: Result<C, MarketDataInput.Invalid>, _ name: String, _ context: RouteContext,
        key: (C) -> String
    ) async -> HTTPResponse {
        switch parsed {
        case .failure(let invalid): return .error(400, invalid.text)
        case .success(let command): return await send(name, key: key(command), command, context)
        }
    }

    /// A GET route behind the market-data limiter.
    func limited(_ template: String, _ handle: @escaping @Sendable (RouteContext) async -> HTTPResponse) -> Route {
        guard let limiter else { return Route("GET", template, handle) }
        return Route("GET", template, guard: { caller, head in await limiter.check(caller, head) }, handle)
    }

    private func send<C: Encodable>(_ name: String, key: String, _ command: C, _ context: RouteContext) async
        -> HTTPResponse
    {
        await caller.call(.rating, name, key: key, command: command, budget: budget, requestId: context.requestId)
    }
}
