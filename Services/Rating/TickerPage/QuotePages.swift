import Contracts
import MarketData
import Messaging

/// `GET /v1/quote` (docs/COMPATIBILITY.md#ticker-page) and `GET /v1/quote-history`, through the market-data boundary.
public struct QuotePages: Sendable {
    static let quoteCacheControl = "public, max-age=15, stale-while-revalidate=60"
    static let historyCacheControl = "public, max-age=60"

    let market: MarketDataClient
    let histories: PriceHistoryStore

    public init(market: MarketDataClient, histories: PriceHistoryStore) {
        self.market = market
        self.histories = histories
    }

    /// `{quote}`; 400 for a symbol that cannot be one, 502 `quote unavailable` when no provider had it.
    public func quote(_ command: QuoteCommand) async -> Reply {
        guard MarketSymbol.normalize(command.symbol) != nil else { return .error(.invalidSymbol) }
        guard let quote = await market.quote(command.symbol) else { return .error(502, "quote unavailable") }
        return .json(200, QuoteResponse(quote: quote), headers: [("Cache-Control", Self.quoteCacheControl)])
    }

    /// `QuoteHistoryResponse` with OHLCV points; 502 `history unavailable` when there is no usable series.
    public func history(_ command: QuoteHistoryCommand) async -> Reply {
        guard let symbol = MarketSymbol.normalize(command.symbol) else { return .error(.invalidSymbol) }
        guard let entry = await histories.history(symbol, period: command.period, interval: command.interval) else {
            return .error(502, "history unavailable")
        }
        let response = QuoteHistoryResponse(
            ticker: symbol, period: command.period, interval: command.interval, points: entry.history.bars,
            sources: [Self.source(entry, symbol: symbol)])
        return .json(200, response, headers: [("Cache-Control", Self.historyCacheControl)])
    }

    /// The citation for a history: the provider, its page, when it was fetched; Massive (licensed) high confidence,
    /// Yahoo medium, as the original.
    static func source(_ entry: PriceHistoryStore.Entry, symbol: String) -> Source {
        switch entry.history.provider {
        case .yahoo:
            Source(
                provider: .yahoo, url: "https://finance.yahoo.com/quote/\(MarketSymbol.pathSegment(symbol))",
                fetchedAt: entry.fetchedAt, confidence: .medium)
        case .massive:
            Source(provider: .massive, url: "https://massive.com/docs", fetchedAt: entry.fetchedAt, confidence: .high)
        }
    }
}

extension MarketDataProvider {
    /// The provider's name in chart subtitles and notes.
    var displayName: String {
        switch self {
        case .yahoo: "Yahoo Finance"
        case .massive: "Massive"
        }
    }
}
