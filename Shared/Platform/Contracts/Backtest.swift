import Foundation

/// `POST /v1/backtest` (docs/COMPATIBILITY.md#ticker-page) on `mapvest.briefs.commands.v1`, keyed by the user id: the
/// tickers given (valid, de-duplicated, at most 50), or with none given the list `listId` (nil = the default list).
/// `period` is one of 1mo, 3mo, 6mo, 1y (anything else is 3mo, as the original did).
public struct BacktestCommand: Codable, Sendable, Equatable {
    public static let name = "briefs.backtest.v1"
    public var userId: String
    public var tickers: [String]?
    public var listId: String?
    public var period: PricePeriod
    public init(userId: String, tickers: [String]?, listId: String?, period: PricePeriod) {
        self.userId = userId
        self.tickers = tickers
        self.listId = listId
        self.period = period
    }

    /// The periods a backtest runs over.
    public static let periods: [PricePeriod] = [.oneMonth, .threeMonths, .sixMonths, .oneYear]

    public static let maxTickers = 50

    /// Trimmed, upper-cased, the accepted ones only, de-duplicated in order, at most `maxTickers`.
    public static func symbols(_ raw: [String]) -> [String] {
        var seen = Set<String>()
        return raw.map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
            .filter { accepts($0) && seen.insert($0).inserted }
            .prefix(maxTickers).map { $0 }
    }

    /// Whether a symbol is one the backtest takes: `^[A-Z][A-Z0-9.-]{0,7}$` (upper-cased input).
    public static func accepts(_ symbol: String) -> Bool {
        let bytes = Array(symbol.utf8)
        guard let first = bytes.first, (65...90).contains(first), bytes.count <= 8 else { return false }
        return bytes.dropFirst().allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 45 }
    }
}

/// An equal-weight basket of the tickers from the start of the common window (each normalised to 1.0 there, no
/// rebalancing or dividends) against SPY over the same window: returns as fractions (0.05 = +5 %), `series` and
/// `benchmarkSeries` resampled to at most 20 points, `omitted` the tickers without two closes.
public struct BacktestResponse: Codable, Sendable, Equatable {
    public struct Contributor: Codable, Sendable, Equatable {
        public var ticker: String
        public var `return`: Double
        public init(ticker: String, return value: Double) {
            self.ticker = ticker
            self.return = value
        }
    }
    public var period: PricePeriod
    public var totalReturn: Double
    public var benchmarkReturn: Double
    public var spread: Double
    public var best: Contributor
    public var worst: Contributor
    public var series: [Double]
    public var benchmarkSeries: [Double]
    public var omitted: [String]
    public var generatedAt: String
    public init(
        period: PricePeriod, totalReturn: Double, benchmarkReturn: Double, spread: Double, best: Contributor,
        worst: Contributor, series: [Double], benchmarkSeries: [Double], omitted: [String], generatedAt: String
    ) {
        self.period = period
        self.totalReturn = totalReturn
        self.benchmarkReturn = benchmarkReturn
        self.spread = spread
        self.best = best
        self.worst = worst
        self.series = series
        self.benchmarkSeries = benchmarkSeries
        self.omitted = omitted
        self.generatedAt = generatedAt
    }
}
