import Contracts

/// The commands the gateway may hedge (`RequestReplyClient`'s second copy on another partition): reads whose
/// running twice changes nothing but cache entries. Everything else — identify, saves, replays, pushes, watchlist
/// and alert writes, chats, briefs, memos, backtests, anything paid per call beyond a cached lookup — is sent once.
enum IdempotentReads {
    static let commands: Set<String> = [
        ResolveComparableCommand.name,  // identify.resolve-comparable.v1: seed and cache lookup
        NearbyCommand.name,  // nearby.get.v1: places and tile cache
        RatingCommand.name,  // rating.get.v1: cached rating
        QuoteCommand.name,  // quote.get.v1
        QuoteHistoryCommand.name,  // quote-history.get.v1
        ChartCommand.name,  // chart.get.v1: a rendered chart
        NewsCommand.name,  // news.get.v1
        SearchIntentCommand.name,  // search.intent.v1
        UniverseSummaryCommand.name,  // universe.summary.v1
        ListFindsCommand.name,  // finds.list.v1: the user's journal
        DexCommand.name,  // dex.get.v1
    ]
}
