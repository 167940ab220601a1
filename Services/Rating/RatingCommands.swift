import Contracts
import Foundation
import Headlines
import Messaging
import RatingAdapters
import SearchIntent
import TickerPage

/// Routes the Rating service's commands to their handlers.
struct RatingCommands: Sendable {
    let ratings: RatingService
    let news: NewsPage
    let intents: SearchIntentResolver
    let ticker: TickerPage
    /// Publishes a computed rating's event (after the reply; retried with the offset held until it succeeds).
    let publishComputed: @Sendable (RatingResponse, Duration) async throws -> Void

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case RatingCommand.name:
            let request: RatingCommand = try decode(command)
            let outcome = await ratings.rating(request.ticker, deadline: command.deadline)
            let reply = Reply.json(200, outcome.response, headers: [("Cache-Control", RatingService.cacheControl)])
            // The call that ran the computation publishes its event, as its own after-reply work.
            guard let elapsed = outcome.computedIn else { return reply }
            let publishComputed = self.publishComputed
            return reply.then { try await publishComputed(outcome.response, elapsed) }
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
        case PacketChatCommand.name:
            return await ticker.research.chat(try decode(command), deadline: command.deadline)
        case MarketCapabilitiesCommand.name:
            return ticker.surface.capabilities()
        case AggregatesCommand.name:
            return await ticker.surface.aggregates(try decode(command))
        case FinancialRatiosCommand.name:
            return await ticker.surface.ratios(try decode(command))
        case MarketEventsCommand.name:
            return await ticker.surface.events(try decode(command))
        case OptionsChainCommand.name:
            return await ticker.surface.optionsChain(try decode(command))
        case OptionContractsCommand.name:
            return await ticker.surface.optionContracts(try decode(command))
        case OptionContractCommand.name:
            return await ticker.surface.optionContract(try decode(command))
        case OptionSummaryCommand.name:
            return await ticker.surface.optionSummary(try decode(command))
        case MapSnapshotCommand.name:
            return await ticker.snapshots.snapshot(try decode(command))
        case OptionBarsCommand.name:
            return await ticker.surface.optionBars(try decode(command))
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
