import Contracts
import Foundation
import Messaging

/// Routes Briefs' commands to their handlers.
struct BriefsCommands: Sendable {
    let watchlists: WatchlistCommands
    let briefs: DailyBriefs
    let headlines: WatchlistHeadlines
    let news: NewsReader
    let scheduled: ScheduledRuns

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        typealias Name = WatchlistCommandName
        switch command.name {
        case Name.lists: return try await watchlists.lists(decode(command))
        case Name.createList: return try await watchlists.createList(decode(command))
        case Name.renameList: return try await watchlists.renameList(decode(command))
        case Name.setDefault: return try await watchlists.setDefault(decode(command))
        case Name.deleteList: return try await watchlists.deleteList(decode(command))
        case Name.summary: return await watchlists.summary(try decode(command))
        case Name.move: return try await watchlists.move(decode(command))
        case Name.entries: return try await watchlists.entries(decode(command))
        case Name.add: return try await watchlists.add(decode(command), deadline: command.deadline)
        case Name.remove: return try await watchlists.remove(decode(command))
        case Name.memo: return try await watchlists.memo(decode(command))
        case Name.contains: return try await watchlists.contains(decode(command))
        case Name.brief: return try await briefs.brief(decode(command), deadline: command.deadline)
        case Name.headlines: return try await headlines.headlines(decode(command), deadline: command.deadline)
        case Name.newsRead: return await news.read(try decode(command), deadline: command.deadline)
        case GenerateDailyBriefsCommand.name: return try await scheduled.dailyBriefs(decode(command), deadline: command.deadline)
        case ScanWatchlistMoversCommand.name: return try await scheduled.movers(decode(command))
        default: throw CommandDecodingError("unknown command \(command.name)")
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
