import Contracts
import Foundation
import MarketData
import Runtime

/// `GET /v1/news?ticker=&limit=&materiality=` (docs/COMPATIBILITY.md#news): the provider's headlines, each with an
/// optional `jev_materiality` tag, and the `?materiality=` floor that keeps scored items at or above it plus every
/// unscored item — so a Jev outage can never hide news. A provider failure is `items: []`, `provider: "error"`, still
/// 200.
public struct NewsPage: Sendable {
    public static let cacheControl = "public, max-age=60, stale-while-revalidate=300"
    /// The most a page waits on Jev.
    public static let jevTimeout: Duration = .seconds(3)
    /// Kept back from the deadline for encoding and producing the reply.
    public static let reserve: Duration = .milliseconds(300)

    let market: MarketDataClient
    let materiality: HeadlineMateriality

    public init(market: MarketDataClient, materiality: HeadlineMateriality) {
        self.market = market
        self.materiality = materiality
    }

    /// The page, always within `deadline`: a provider still silent when the deadline nears is a provider failure
    /// (its answer still lands in the market-data cache), and Jev gets what is left, at most 3 s.
    public func page(_ command: NewsCommand, deadline: ContinuousClock.Instant) async -> NewsResponse {
        let market = self.market
        let providerBudget = deadline - ContinuousClock.now - Self.reserve * 2
        let news =
            await withTimeLimit(max(.zero, providerBudget)) { await market.news(command.ticker, limit: command.limit) }
            ?? MarketNews(items: [], provider: "error")
        let ticker = command.ticker.uppercased()
        let jevBudget = min(Self.jevTimeout, deadline - ContinuousClock.now - Self.reserve)
        let tags =
            jevBudget > .zero
            ? await materiality.score(
                news.items.map {
                    HeadlineMateriality.Headline(
                        id: $0.url, ticker: ticker, title: $0.title, source: $0.source, publishedAt: $0.publishedAt)
                }, timeout: jevBudget)
            : Array(repeating: nil, count: news.items.count)
        let items = zip(news.items, tags).map { item, tag in
            NewsHeadline(
                title: item.title, url: item.url, source: item.source, publishedAt: item.publishedAt,
                jevMateriality: tag)
        }
        return NewsResponse(
            items: Self.filter(items, floor: command.materiality), provider: news.provider,
            ts: Timestamp.iso8601(Date()), materiality: command.materiality)
    }

    /// Items whose level is at or above `floor`, plus every unscored item; everything when there is no floor.
    public static func filter(_ items: [NewsHeadline], floor: MaterialityLevel?) -> [NewsHeadline] {
        guard let floor else { return items }
        return items.filter { item in
            guard let tag = item.jevMateriality else { return true }
            return tag.level.rank >= floor.rank
        }
    }
}
