import Contracts
import Foundation
import HTTPServer

/// `POST /v1/backtest` (docs/COMPATIBILITY.md#ticker-page), bearer-only, answered by Briefs: `{tickers?, period?,
/// listId?}`. With `tickers` (an array; the valid symbols are kept, none left → 400) those are tested; without it, the
/// list `listId` (absent = the default list). `period` is 1mo, 3mo, 6mo or 1y (absent = 3mo;
/// anything else is a 400 naming it).
struct BacktestRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var route: Route {
        let (caller, budget) = (self.caller, self.budget)
        return Route("POST", "/v1/backtest", auth: .required) { context in
            guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
            switch Self.command(userId: userId, context) {
            case .failure(let response): return response
            case .success(let command):
                return await caller.call(
                    .briefs, BacktestCommand.name, key: userId, command: command, budget: budget,
                    requestId: context.requestId)
            }
        }
    }

    static func command(userId: String, _ context: RouteContext) -> Result<BacktestCommand, HTTPResponse> {
        let required = HTTPResponse.error(.tickersRequired)
        guard case .success(let body) = JSONBody.decode([String: JSONValue].self, from: context.request, error: "")
        else {
            return .failure(required)
        }
        var period = PricePeriod.threeMonths
        if let given = body["period"] {
            guard case .string(let raw) = given, let known = PricePeriod(rawValue: raw),
                BacktestCommand.periods.contains(known)
            else {
                let names = BacktestCommand.periods.map(\.rawValue).joined(separator: ", ")
                return .failure(.error(400, "period must be one of \(names)"))
            }
            period = known
        }
        switch body["listId"] {
        case nil, .null?, .string?: break
        default: return .failure(.error(400, "listId must be a string"))
        }
        switch body["tickers"] {
        case nil:
            var listId: String?
            if case .string(let raw) = body["listId"], !raw.isEmpty {
                guard WatchlistRoutes.isListId(raw) else { return .failure(.error(.listNotFound)) }
                listId = raw
            }
            return .success(BacktestCommand(userId: userId, tickers: nil, listId: listId, period: period))
        case .array(let values):
            let symbols = BacktestCommand.symbols(values.compactMap { if case .string(let s) = $0 { s } else { nil } })
            guard !symbols.isEmpty else { return .failure(required) }
            return .success(BacktestCommand(userId: userId, tickers: symbols, listId: nil, period: period))
        default:
            return .failure(required)
        }
    }
}
