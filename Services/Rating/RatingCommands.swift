import Contracts
import Foundation
import Headlines
import Messaging
import RatingDomain
import SearchIntent
import TickerPage

/// Routes the Rating service's commands to their handlers.
struct RatingCommands: Sendable {
    let ratings: RatingService
    let news: NewsPage
    let intents: SearchIntentResolver
    let ticker: TickerPage

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case RatingCommand.name:
            let request: RatingCommand = try decode(command)
            let (response, _) = await ratings.rating(request.ticker, deadline: command.deadline)
            return .json(200, response, headers: [("Cache-Control", RatingService.cacheControl)])
        case NewsCommand.name:
            let request: NewsCommand = try decode(command)
            let response = await news.page(request, deadline: command.deadline)
            return .json(200, response, headers: [("Cache-Control", NewsPage.cacheControl)])
        case SearchIntentCommand.name:
            let request: SearchIntentCommand = try decode(command)
            return .json(200, await intents.resolve(q: request.q, lat: request.lat, lng: request.lng))
        case QuoteCommand.name:
            return await ticker.quotes.quote(try decode(command))
        case QuoteHistoryCommand.name:
            return await ticker.quotes.history(try decode(command))
        case ChartCommand.name:
            return await ticker.charts.chart(try decode(command), deadline: command.deadline)
        case AnalysisCommand.name:
            return await ticker.research.analysis(try decode(command), deadline: command.deadline)
        case ResearchSummaryCommand.name:
            return await ticker.research.summary(try decode(command), deadline: command.deadline)
        default:
            throw CommandDecodingError("unknown command \(command.name)")
        }
    }

    private func decode<T: Decodable>(_ command: IncomingCommand) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(command.body))
        } catch {
            throw CommandDecodingError("\(command.name): \(error)")
        }
    }
}
