import Contracts
import Testing

@Suite struct TickerPageContractTests {
    @Test func periodsAcceptTheOriginalsAliases() {
        #expect(PricePeriod(query: " 1mo ") == .oneMonth && PricePeriod(query: "1M") == .oneMonth)
        #expect(PricePeriod(query: "1m") == .oneMonth && PricePeriod(query: "3M") == .threeMonths)
        #expect(
            PricePeriod(query: "1Y") == .oneYear && PricePeriod(query: "2y") == .twoYears
                && PricePeriod(query: "5D") == .fiveDays)
        #expect(PricePeriod(query: "10y") == nil && PricePeriod(query: "") == nil && PricePeriod(query: "max") == nil)
        #expect(PriceInterval(query: "1WK") == .oneWeek && PriceInterval(query: "15min") == .fifteenMinutes)
        #expect(PriceInterval(query: "1h") == nil)
    }

    @Test func chartTypesNormalizeAndMapToUnderlying() {
        #expect(ChartType(path: " Ridge_Growth ") == .ridgeGrowth && ChartType(path: "FLOW_COMPASS") == .flowCompass)
        #expect(ChartType(path: "candles") == nil)
        #expect(ChartType.price.underlyingName == nil && ChartType.ridge.underlyingName == "ridge-growth")
        #expect(ChartType.auction.underlyingName == "auction" && ChartType.torque.underlyingName == "torque")
        #expect(ChartType.auction.defaultPeriod == .oneMonth && ChartType.torque.defaultPeriod == .twoYears)
        #expect(ChartType.regression.defaultPeriod == .oneYear)
        #expect(ChartType.validationError.hasPrefix("unsupported chart type (use price|regression|ridge|auction|"))
    }

    @Test func researchSymbolsAllowPairsButNothingThatLeavesAPathSegment() {
        #expect(
            ResearchSummaryCommand.symbol(" x:btcusd ") == "X:BTCUSD"
                && ResearchSummaryCommand.symbol("brk.b") == "BRK.B")
        #expect(ResearchSummaryCommand.symbol("C:EUR-USD") == "C:EUR-USD")
        for bad in ["", "1ABC", "../ETC", "A/B", "A B", String(repeating: "A", count: 17), "ÄPPLE", "A\u{0}B"] {
            #expect(ResearchSummaryCommand.symbol(bad) == nil, "\(bad)")
        }
    }
}
