import Contracts
import Foundation
import HTTPServer

/// `GET /v1/rating/:ticker` (docs/COMPATIBILITY.md#rating), `GET /v1/news` (docs/COMPATIBILITY.md#news) and `POST
/// /v1/search/intent` (docs/COMPATIBILITY.md#search-intent): validated here, answered by the Rating service, which owns
/// the market-data-backed answers.
struct ResearchRoutes: Sendable {
    let caller: ServiceCaller
    let ratingBudget: Duration
    let budget: Duration

    var routes: [Route] {
        [
            Route("GET", "/v1/rating/:ticker") { context in
                guard let ticker = ResearchInput.ratingTicker(context.parameters["ticker"]) else {
                    return .error(.tickerRequiredExample)
                }
                return await caller.call(
                    .rating, RatingCommand.name, key: ticker, command: RatingCommand(ticker: ticker),
                    budget: ratingBudget,
                    requestId: context.requestId)
            },
            Route("GET", "/v1/news", auth: .optional) { context in
                let command: NewsCommand
                do throws(HTTPResponse) {
                    command = try ResearchInput.news(context.request.head.query)
                } catch {
                    return error
                }
                return await caller.call(
                    .rating, NewsCommand.name, key: command.ticker, command: command, budget: budget,
                    requestId: context.requestId)
            },
            Route("POST", "/v1/search/intent") { context in
                let command: SearchIntentCommand
                do throws(HTTPResponse) {
                    command = try ResearchInput.intent(context.request)
                } catch {
                    return error
                }
                return await caller.call(
                    .rating, SearchIntentCommand.name, key: command.q.lowercased(), command: command, budget: budget,
                    requestId: context.requestId)
            },
        ]
    }
}
