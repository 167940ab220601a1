import Contracts
import Foundation
import HTTPServer

/// The ticker page: `GET /v1/quote`, `/v1/quote-history`, `/v1/chart/:type`, `/v1/analysis/:ticker` and the stored
/// Prism/Situate summaries. Validated here (the contract's 400s), answered by the Rating service, which owns market
/// data. Charts get the rating budget: they may wait for the Underlying service and then draw their own.
struct TickerRoutes: Sendable {
    let caller: ServiceCaller
    let chartBudget: Duration
    let budget: Duration

    var routes: [Route] {
        [
            Route("GET", "/v1/quote") { context in
                switch Self.symbol(context.request.head.query["symbol"]) {
                case .failure(let message): return .error(400, message.text)
                case .success(let symbol):
                    return await send(QuoteCommand.name, key: symbol, QuoteCommand(symbol: symbol), context)
                }
            },
            Route("GET", "/v1/quote-history") { context in
                switch Self.history(context.request.head.query) {
                case .failure(let message): return .error(400, message.text)
                case .success(let command):
                    return await send(QuoteHistoryCommand.name, key: command.symbol, command, context)
                }
            },
            Route("GET", "/v1/chart/:type") { context in
                switch Self.chart(type: context.parameters["type"], context.request.head.query) {
                case .failure(let message): return .error(400, message.text)
                case .success(let command):
                    return await caller.call(
                        .rating, ChartCommand.name, key: command.ticker, command: command, budget: chartBudget,
                        requestId: context.requestId)
                }
            },
            Route("GET", "/v1/analysis/:ticker") { context in
                guard let ticker = ResearchInput.ratingTicker(context.parameters["ticker"]) else {
                    return .error(.tickerRequiredExample)
                }
                return await send(AnalysisCommand.name, key: ticker, AnalysisCommand(ticker: ticker), context)
            },
            summary(.prism),
            summary(.situate),
        ]
    }

    private func summary(_ engine: ResearchEngine) -> Route {
        Route("GET", "/v1/\(engine.rawValue)/:ticker/summary") { context in
            guard let ticker = context.parameters["ticker"].flatMap(ResearchSummaryCommand.symbol) else {
                return .json(
                    400, raw: Array("{\"error\":\"invalid ticker\",\"code\":\"\(engine.rawValue)_bad_request\"}".utf8))
            }
            return await send(
                ResearchSummaryCommand.name, key: ticker, ResearchSummaryCommand(engine: engine, ticker: ticker),
                context)
        }
    }

    private func send<C: Encodable>(_ name: String, key: String, _ command: C, _ context: RouteContext) async
        -> HTTPResponse
    {
        await caller.call(.rating, name, key: key, command: command, budget: budget, requestId: context.requestId)
    }

    struct Invalid: Error {
        let text: String
    }

    /// A query value that says something (an empty `period=` means the default).
    static func present(_ raw: String?) -> String? {
        guard let raw, !raw.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return raw
    }

    /// Trimmed and upper-cased: `symbol required` when missing or blank, `invalid symbol` past 32 characters.
    static func symbol(_ raw: String?) -> Result<String, Invalid> {
        let s = raw?.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() ?? ""
        guard !s.isEmpty else { return .failure(Invalid(text: "symbol required")) }
        guard s.count <= 32 else { return .failure(Invalid(text: "invalid symbol")) }
        return .success(s)
    }

    /// `symbol` required; `period` default 1mo; `interval` default 1d, and 15m only over 5d or 1mo.
    static func history(_ query: [String: String]) -> Result<QuoteHistoryCommand, Invalid> {
        let symbol: String
        switch Self.symbol(query["symbol"]) {
        case .failure(let message): return .failure(message)
        case .success(let s): symbol = s
        }
        guard let period = present(query["period"]).map(PricePeriod.init(query:)) ?? .oneMonth else {
            return .failure(Invalid(text: PricePeriod.validationError))
        }
        guard let interval = present(query["interval"]).map(PriceInterval.init(query:)) ?? .oneDay else {
            return .failure(Invalid(text: PriceInterval.validationError))
        }
        if let problem = pairProblem(period, interval) { return .failure(problem) }
        return .success(QuoteHistoryCommand(symbol: symbol, period: period, interval: interval))
    }

    /// 15-minute bars exist only over 5d or 1mo (the market-data source has no longer intraday history).
    static func pairProblem(_ period: PricePeriod, _ interval: PriceInterval) -> Invalid? {
        guard interval == .fifteenMinutes, ![.fiveDays, .oneMonth].contains(period) else { return nil }
        return Invalid(text: "interval 15m needs period 5d or 1mo")
    }

    /// The type, then `ticker` (the rating's rule), `period` (default by type), `interval` (default 1d, and 15m only
    /// over 5d or 1mo) and an optional whole `month` 1…12.
    static func chart(type raw: String?, _ query: [String: String]) -> Result<ChartCommand, Invalid> {
        guard let type = raw.flatMap(ChartType.init(path:)) else {
            return .failure(Invalid(text: ChartType.validationError))
        }
        guard let ticker = ResearchInput.ratingTicker(query["ticker"]) else {
            return .failure(Invalid(text: "ticker required (e.g. MCD)"))
        }
        guard let period = present(query["period"]).map(PricePeriod.init(query:)) ?? type.defaultPeriod else {
            return .failure(Invalid(text: PricePeriod.validationError))
        }
        guard let interval = present(query["interval"]).map(PriceInterval.init(query:)) ?? .oneDay else {
            return .failure(Invalid(text: PriceInterval.validationError))
        }
        if let problem = pairProblem(period, interval) { return .failure(problem) }
        var month: Int?
        if let text = present(query["month"]) {
            // Range-checked before the conversion (edge input rule: no Int(someDouble) on outside data unchecked).
            guard let value = Double(text), value.isFinite, value == value.rounded(), (1...12).contains(value) else {
                return .failure(Invalid(text: "month must be 1-12"))
            }
            month = Int(value)
        }
        return .success(ChartCommand(type: type, ticker: ticker, period: period, interval: interval, month: month))
    }
}
