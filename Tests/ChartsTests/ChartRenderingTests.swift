import Charts
import Contracts
import Testing

@Suite struct ChartRenderingTests {
    @Test(arguments: ChartKind.allCases)
    func eachKindIsANonBlankPNGOfTheStatedSize(kind: ChartKind) async throws {
        let renderer = ChartRenderer(workers: 1)
        let chart = try await renderer.render(
            ChartRequest(kind: kind, ticker: "TEST", period: "6mo", bars: syntheticBars(), source: "synthetic"))
        #expect(Array(chart.png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let info = try #require(PNGInfo.inspect(chart.png))
        #expect(info.width == 1080 && info.height == 720 && chart.width == 1080 && chart.height == 720)
        #expect(info.luminanceVariance > 100, "a chart, not a blank page: variance \(info.luminanceVariance)")
        #expect(chart.levels != nil || kind != .auction)
        #expect(chart.facts["points"] == 120)
    }

    @Test func numbersBehindTheChartsAreTheMaths() throws {
        let bars = syntheticBars()
        let regression = try ChartRenderer.draw(
            ChartRequest(kind: .regression, ticker: "T", period: "6mo", bars: bars, source: "s"))
        #expect(regression.facts["slopePerDay"] == ChartMath.logTrend(bars)?.slopePerDay)
        let auction = try ChartRenderer.draw(
            ChartRequest(kind: .auction, ticker: "T", period: "6mo", bars: bars, source: "s"))
        let profile = try #require(ChartMath.volumeProfile(bars))
        #expect(auction.levels == AuctionLevels(poc: profile.poc, vah: profile.vah, val: profile.val))
    }

    @Test func tooLittleDataIsAnErrorNotABlankImage() {
        let one = [PriceBar(ts: 0, close: 10, volume: 5)]
        #expect(throws: ChartError(.insufficientData, "not enough price history to draw a chart")) {
            try ChartRenderer.draw(ChartRequest(kind: .price, ticker: "T", period: "1mo", bars: one, source: "s"))
        }
        let noVolume = syntheticBars().map { PriceBar(ts: $0.ts, close: $0.close) }
        #expect(throws: ChartError.self) {
            try ChartRenderer.draw(
                ChartRequest(kind: .auction, ticker: "T", period: "1mo", bars: noVolume, source: "s"))
        }
        #expect(PNGInfo.inspect(Array("not a png".utf8)) == nil)
    }

    @Test func aFullQueueAnswersBusyAtOnce() async {
        let renderer = ChartRenderer(workers: 1, maxWaiting: 1)
        let request = ChartRequest(
            kind: .ridge, ticker: "T", period: "6mo", bars: syntheticBars(count: 250), source: "s")
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 { group.addTask { (try? await renderer.render(request)) != nil } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.contains(true) && outcomes.contains(false))
    }
}
