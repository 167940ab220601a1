import Contracts
import Messaging

/// Routes Briefs' commands to their handlers.
struct BriefsCommands: Sendable {
    let watchlists: WatchlistCommands
    let briefs: DailyBriefs
    let headlines: WatchlistHeadlines
    let news: NewsReader
    let scheduled: ScheduledRuns
    let alerts: PriceAlertCommands
    let backtest: BacktestCommands
    let memos: TickerMemos
    let local: LocalBriefs
    let saved: SavedLocalBriefs
    let movement: Movement
    let evolution: FindEvolution

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        typealias Name = WatchlistCommandName
        switch command.name {
        case Name.lists: return try await watchlists.lists(command.decode())
        case Name.createList: return try await watchlists.createList(command.decode())
        case Name.renameList: return try await watchlists.renameList(command.decode())
        case Name.setDefault: return try await watchlists.setDefault(command.decode())
        case Name.deleteList: return try await watchlists.deleteList(command.decode())
        case Name.summary: return await watchlists.summary(try command.decode())
        case Name.move: return try await watchlists.move(command.decode())
        case Name.entries: return try await watchlists.entries(command.decode())
        case Name.add: return try await watchlists.add(command.decode(), deadline: command.deadline)
        case Name.remove: return try await watchlists.remove(command.decode())
        case Name.memo: return try await watchlists.memo(command.decode())
        case Name.contains: return try await watchlists.contains(command.decode())
        case Name.brief: return await briefs.brief(try command.decode(), deadline: command.deadline)
        case Name.headlines: return await headlines.headlines(try command.decode(), deadline: command.deadline)
        case Name.newsRead: return await news.read(try command.decode(), deadline: command.deadline)
        case GenerateDailyBriefsCommand.name:
            return try await scheduled.dailyBriefs(command.decode(), deadline: command.deadline)
        case ScanWatchlistMoversCommand.name: return try await scheduled.movers(command.decode())
        case PriceAlertCommandName.create:
            return try await alerts.create(command.decode(), requestKey: command.correlationId)
        case PriceAlertCommandName.list: return try await alerts.list(command.decode())
        case PriceAlertCommandName.check: return try await alerts.check(command.decode())
        case PriceAlertCommandName.delete: return try await alerts.delete(command.decode())
        case ScanPriceAlertsCommand.name: return try await alerts.scan(command.decode())
        case BacktestCommand.name: return try await backtest.run(command.decode())
        case TickerMemoCommand.name: return try await memos.memo(command.decode(), deadline: command.deadline)
        case SECFilingsCommand.name: return await memos.filings(try command.decode(), deadline: command.deadline)
        case LocalBriefCommandName.brief: return await local.brief(try command.decode(), deadline: command.deadline)
        case LocalBriefCommandName.save: return try await saved.save(command.decode())
        case LocalBriefCommandName.saved: return try await saved.list(command.decode())
        case LocalBriefCommandName.delete: return try await saved.delete(command.decode())
        case DeviceFixCommand.name: return try await movement.record(command.decode())
        case ScanMovementCommand.name: return try await movement.scan(command.decode(), deadline: command.deadline)
        case ScanFindEvolutionCommand.name: return try await evolution.scan(command.decode())
        default: throw CommandDecodingError("unknown command \(command.name)")
        }
    }
}
