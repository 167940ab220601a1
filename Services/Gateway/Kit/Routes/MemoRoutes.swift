import Contracts
import Foundation
import HTTPServer

/// The memo routes (docs/COMPATIBILITY.md#ticker-page), answered by Briefs: `POST /v1/memo {ticker}` (sign-in optional;
/// a signed-in caller's memo is stored and pushed) and `GET /v1/memo/sec/:ticker`. Tickers as the alerts take them.
struct MemoRoutes: Sendable {
    let caller: ServiceCaller
    let memoBudget: Duration
    let budget: Duration

    var routes: [Route] {
        let (caller, memoBudget, budget) = (self.caller, self.memoBudget, self.budget)
        return [
            Route("POST", "/v1/memo", auth: .optional) { context in
                struct Body: Decodable { let ticker: String? }
                let body = JSONBody.strict(Body.self, from: context.request.body)
                guard let ticker = body?.ticker.flatMap(AlertRoutes.normalizedTicker) else {
                    return .error(.tickerRequired)
                }
                let userId = context.caller.session?.userId
                return await caller.call(
                    .briefs, TickerMemoCommand.name, key: userId ?? ticker,
                    command: TickerMemoCommand(userId: userId, ticker: ticker), budget: memoBudget,
                    requestId: context.requestId)
            },
            Route("GET", "/v1/memo/sec/:ticker", auth: .optional) { context in
                guard let ticker = context.parameters["ticker"].flatMap(AlertRoutes.normalizedTicker) else {
                    return .error(.tickerRequired)
                }
                return await caller.call(
                    .briefs, SECFilingsCommand.name, key: ticker, command: SECFilingsCommand(ticker: ticker),
                    budget: budget, requestId: context.requestId)
            },
        ]
    }
}
