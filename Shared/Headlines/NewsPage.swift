import Contracts
import Foundation
import MarketData
import Runtime

/// `GET /v1/news?ticker=&limit=&materiality=` (CONTRACT.md §g.4): the provider's headlines, each with an optional
/// `jev_materiality` tag, and the `?materiality=` floor that keeps scored items at or above it plus every unscored
/// item — so a Jev outage can never hide news. A provider failure is `items: []`, `provider: "error"`, still 200.
public struct NewsPage: Sendable {
    public static let cacheControl = "public, max-age=60, stale-while-revalidate=300"
    /// The most a page waits on Jev.
    public static let defaultJevTimeout: Duration = .seconds(3)

    let market: MarketDataClient
    let materiality: HeadlineMateriality

    public init(market: MarketDataClient, materiality: HeadlineMateriality) {
        self.market = market
        self.materiality = materiality
    }

    public func page(_ command: NewsCommand, jevTimeout: Duration = NewsPage.defaultJevTimeout) async -> NewsResponse {
        let news = await market.news(command.ticker, limit: command.limit)
        let ticker = command.ticker.uppercased()
        let tags = await materiality.score(
            news.items.map {
                HeadlineMateriality.Headline(
                    id: $0.url, ticker: ticker, title: $0.title, source: $0.source, publishedAt: $0.publishedAt)
            }, timeout: jevTimeout)
        let items = zip(news.items, tags).map { item, tag in
            NewsHeadline(title: item.title, url: item.url, source: item.source, publishedAt: item.publishedAt, jevMateriality: tag)
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
