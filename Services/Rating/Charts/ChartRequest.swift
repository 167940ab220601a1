import Contracts

/// The charts we draw ourselves.
public enum ChartKind: String, Sendable, CaseIterable {
    /// Close line over a light area, the last price marked.
    case price
    /// Least-squares trend of log price with ±1σ and ±2σ channels.
    case regression
    /// Ridgeline densities of daily returns, one ridge per calendar month.
    case ridge
    /// A volume profile beside the price: point of control and the 70 % value area.
    case auction

    /// The chart's name in titles.
    var title: String {
        switch self {
        case .price: "Price"
        case .regression: "Regression channel"
        case .ridge: "Daily returns by month"
        case .auction: "Auction: volume at price"
        }
    }
}

/// What to draw: the series and the words around it.
public struct ChartRequest: Sendable {
    public var kind: ChartKind
    public var ticker: String
    /// The period label for the title (`1mo`, `1y`, …).
    public var period: String
    /// Oldest first; closes must be positive.
    public var bars: [PriceBar]
    /// Where the prices came from, for the subtitle (`Yahoo Finance`).
    public var source: String
    public var currency: String
    /// Output size in pixels and the drawing scale (logical units are pixels / scale).
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var scale: Double

    /// 1080 × 720 pixels drawn at 2× (a 540 × 360 layout): sharp across a phone's width.
    public static let defaultSize = (width: 1080, height: 720, scale: 2.0)

    public init(
        kind: ChartKind, ticker: String, period: String, bars: [PriceBar], source: String, currency: String = "USD",
        pixelWidth: Int = ChartRequest.defaultSize.width, pixelHeight: Int = ChartRequest.defaultSize.height,
        scale: Double = ChartRequest.defaultSize.scale
    ) {
        self.kind = kind
        self.ticker = ticker
        self.period = period
        self.bars = bars
        self.source = source
        self.currency = currency
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
    }
}

/// The auction levels of a volume profile (`ChartResponse.levels`).
public struct AuctionLevels: Sendable, Equatable {
    public var poc: Double
    public var vah: Double
    public var val: Double

    public init(poc: Double, vah: Double, val: Double) {
        self.poc = poc
        self.vah = vah
        self.val = val
    }
}

/// A drawn chart: the PNG, its auction levels (auction only) and the numbers behind it (`meta`).
public struct RenderedChart: Sendable {
    public var png: [UInt8]
    public var width: Int
    public var height: Int
    public var levels: AuctionLevels?
    /// E.g. `slopePerDay`, `sigma`, `r2` (regression), `months` (ridge), `points`.
    public var facts: [String: Double]
}

/// Why a chart could not be drawn.
public struct ChartError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Too few bars (or, for auction, no volume) to draw this kind.
        case insufficientData
        /// Too many charts waiting for a renderer.
        case busy
        /// cairo failed (allocation or encoding).
        case renderFailed
    }
    public let kind: Kind
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
