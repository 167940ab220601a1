import Contracts
import Messaging

/// Routes Briefs' commands through one table, command name → handler, registered feature by feature; an unknown
/// name is undecodable.
struct BriefsCommands: Sendable {
    typealias Handler = @Sendable (IncomingCommand) async throws -> Reply

    private let table: [String: Handler]

    init(
        watchlists: WatchlistCommands, briefs: DailyBriefs, headlines: WatchlistHeadlines, news: NewsReader,
        scheduled: ScheduledRuns, alerts: PriceAlertCommands, backtest: BacktestCommands, memos: TickerMemos,
        local: LocalBriefs, saved: SavedLocalBriefs, movement: Movement, evolution: FindEvolution
    ) {
        typealias Name = WatchlistCommandName
        let watchlistRoutes: [String: Handler] = [
            Name.lists: { try await watchlists.lists($0.decode()) },
            Name.createList: { try await watchlists.createList($0.decode()) },
            Name.renameList: { try await watchlists.renameList($0.decode()) },
            Name.setDefault: { try await watchlists.setDefault($0.decode()) },
            Name.deleteList: { try await watchlists.deleteList($0.decode()) },
            Name.summary: { await watchlists.summary(try $0.decode()) },
            Name.move: { try await watchlists.move($0.decode()) },
            Name.entries: { try await watchlists.entries($0.decode()) },
            Name.add: { try await watchlists.add($0.decode(), deadline: $0.deadline) },
            Name.remove: { try await watchlists.remove($0.decode()) },
            Name.memo: { try await watchlists.memo($0.decode()) },
            Name.contains: { try await watchlists.contains($0.decode()) },
        ]
        let readingRoutes: [String: Handler] = [
            Name.brief: { await briefs.brief(try $0.decode(), deadline: $0.deadline) },
            Name.headlines: { await headlines.headlines(try $0.decode(), deadline: $0.deadline) },
            Name.newsRead: { await news.read(try $0.decode(), deadline: $0.deadline) },
            GenerateDailyBriefsCommand.name: { try await scheduled.dailyBriefs($0.decode(), deadline: $0.deadline) },
            ScanWatchlistMoversCommand.name: { try await scheduled.movers($0.decode()) },
        ]
        let alertRoutes: [String: Handler] = [
            PriceAlertCommandName.create: { try await alerts.create($0.decode(), requestKey: $0.correlationId) },
            PriceAlertCommandName.list: { try await alerts.list($0.decode()) },
            PriceAlertCommandName.check: { try await alerts.check($0.decode()) },
            PriceAlertCommandName.delete: { try await alerts.delete($0.decode()) },
            ScanPriceAlertsCommand.name: { try await alerts.scan($0.decode()) },
        ]
        let tickerRoutes: [String: Handler] = [
            BacktestCommand.name: { try await backtest.run($0.decode()) },
            TickerMemoCommand.name: { try await memos.memo($0.decode(), deadline: $0.deadline) },
            SECFilingsCommand.name: { await memos.filings(try $0.decode(), deadline: $0.deadline) },
        ]
        let localRoutes: [String: Handler] = [
            LocalBriefCommandName.brief: { await local.brief(try $0.decode(), deadline: $0.deadline) },
            LocalBriefCommandName.save: { try await saved.save($0.decode()) },
            LocalBriefCommandName.saved: { try await saved.list($0.decode()) },
            LocalBriefCommandName.delete: { try await saved.delete($0.decode()) },
            DeviceFixCommand.name: { try await movement.record($0.decode()) },
            ScanMovementCommand.name: { try await movement.scan($0.decode(), deadline: $0.deadline) },
            ScanFindEvolutionCommand.name: { try await evolution.scan($0.decode()) },
        ]
        // A name registered twice is a programming error: the merge keeps neither silently.
        table = [watchlistRoutes, readingRoutes, alertRoutes, tickerRoutes, localRoutes].reduce(into: [:]) {
            all, part in
            all.merge(part) { first, _ in
                assertionFailure("a Briefs command name is registered twice")
                return first
            }
        }
    }

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        guard let handler = table[command.name] else {
            throw CommandDecodingError("unknown command \(command.name)")
        }
        return try await handler(command)
    }
}
