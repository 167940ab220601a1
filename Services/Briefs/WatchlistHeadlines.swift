import BriefsCore
import Contracts
import Exa
import Foundation
import Headlines
import MarketData
import Messaging
import Runtime

/// `GET /v1/watchlist/headlines` (docs/COMPATIBILITY.md#watchlist-headlines): three headlines per ticker of the list,
/// thirty in all, newest first, each tagged by one batched materiality call (the tag absent, never null, when
/// unscored); the `?materiality=` floor keeps every unscored item. Never a 500: a failed provider just contributes
/// nothing.
struct WatchlistHeadlines: Sendable {
    static let jevTimeout: Duration = .seconds(3)
    static let reserve: Duration = .milliseconds(300)

    let store: WatchlistStore
    let market: MarketDataClient
    let materiality: HeadlineMateriality
    let logger: Logger

    func headlines(_ command: WatchHeadlinesCommand, deadline: ContinuousClock.Instant) async -> Reply {
        let found: (list: WatchList, entries: [WatchEntry])?
        do {
            found = try await store.listWithEntries(userId: command.userId, listId: command.listId)
        } catch {
            logger.warning("headlines: list read failed", [LogKeys.error: .string("\(error)")])
            // Never a 500: a failed list read is an empty card, as a failed provider is.
            return .json(
                200,
                WatchHeadlinesResponse(
                    items: [], tickers: [], materiality: command.materiality, generatedAt: Timestamp.iso8601(Date())))
        }
        guard let (_, entries) = found else { return .error(.listNotFound) }
        let tickers = entries.map(\.ticker)
        let market = self.market
        let providerBudget = max(.zero, deadline - ContinuousClock.now - Self.reserve * 2 - Self.jevTimeout / 2)
        let fetched = await withTaskGroup(of: [WatchHeadline].self) { group in
            for ticker in tickers {
                group.addTask {
                    let items =
                        await withTimeLimit(providerBudget) {
                            await market.news(ticker, limit: WatchlistRules.headlinesPerTicker).items
                        }
                        ?? []
                    return items.prefix(WatchlistRules.headlinesPerTicker).map {
                        WatchHeadline(
                            title: $0.title, url: $0.url, source: $0.source, publishedAt: $0.publishedAt, ticker: ticker
                        )
                    }
                }
            }
            return await group.reduce(into: [WatchHeadline]()) { $0 += $1 }
        }
        var items = Array(WatchlistRules.newestFirst(fetched).prefix(WatchlistRules.headlineTotal))
        let jevBudget = min(Self.jevTimeout, deadline - ContinuousClock.now - Self.reserve)
        if jevBudget > .zero, !items.isEmpty {
            let tags = await materiality.score(
                items.map {
                    HeadlineMateriality.Headline(
                        id: "\($0.ticker)::\($0.url)", ticker: $0.ticker, title: $0.title, source: $0.source,
                        publishedAt: $0.publishedAt)
                }, timeout: jevBudget)
            for i in items.indices where i < tags.count { items[i].jevMateriality = tags[i] }
        }
        return .json(
            200,
            WatchHeadlinesResponse(
                items: WatchlistRules.filter(items, floor: command.materiality), tickers: tickers,
                materiality: command.materiality,
                generatedAt: Timestamp.iso8601(Date())))
    }
}

/// `GET /v1/news/read?url=` (docs/COMPATIBILITY.md#watchlist-headlines): the article's text through Exa `/contents`; no
/// key, a failure or no text is a 200 with `error: "unavailable"`.
struct NewsReader: Sendable {
    static let cacheControl = "public, max-age=300, stale-while-revalidate=600"
    let exa: ExaClient

    func read(_ command: NewsReadCommand, deadline: ContinuousClock.Instant) async -> Reply {
        let timeout = max(.milliseconds(100), deadline - ContinuousClock.now - .milliseconds(300))
        let response = await exa.contents(url: command.url, timeout: timeout)
        let now = Timestamp.iso8601(Date())
        let body: NewsReadResponse
        if let document = response.document, !document.text.isEmpty {
            body = NewsReadResponse(title: document.title, url: command.url, text: document.text, fetchedAt: now)
        } else {
            body = NewsReadResponse(title: nil, url: command.url, text: "", fetchedAt: now, error: "unavailable")
        }
        return .json(200, body, headers: [("Cache-Control", Self.cacheControl)])
    }
}
