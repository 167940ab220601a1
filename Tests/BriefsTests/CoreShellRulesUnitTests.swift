import BriefsCore
import Contracts
import Foundation
import Testing

/// BriefsCore's rules behind the stores and upstream calls: the local brief's place and prompt, the movement fix
/// and anchor rules, the find read model's normalisation, find evolution's quote list, price alerts' firing and
/// window, and the memo's facts.
@Suite struct CoreShellRulesUnitTests {
    static let now = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01T12:00:00Z

    @Test func localBriefPlaceSearchAndPrompt() {
        let mission = LocalBriefPlace(neighborhood: "Mission", city: "San Francisco", state: "CA")
        #expect(LocalBriefRules.searchArea(mission) == "Mission, San Francisco, CA")
        #expect(LocalBriefRules.searchArea(LocalBriefPlace(city: "Oakland")) == "Oakland")
        #expect(LocalBriefRules.searchArea(LocalBriefPlace(state: "CA")) == nil)
        #expect(LocalBriefRules.needsGeocoding(LocalBriefPlace(neighborhood: "N", city: "C")))
        #expect(!LocalBriefRules.needsGeocoding(LocalBriefPlace(neighborhood: "N", city: "C", state: "S")))
        #expect(
            LocalBriefRules.merge(
                LocalBriefPlace(city: "Given"), LocalBriefPlace(neighborhood: "N", city: "C", zip: "9"))
                == LocalBriefPlace(neighborhood: "N", city: "Given", zip: "9"))
        let empty = LocalBriefRules.prompt(place: LocalBriefPlace(), brands: [], sources: [])
        #expect(empty.contains("Place: unknown (describe") && empty.contains("(none found)"))
        #expect(empty.hasSuffix("Sources:\n(none)\n\nWrite the brief."))
        let brand = LocalBriefRules.Brand(name: "Starbucks", kind: "cafe", ticker: "SBUX")
        #expect(brand.line == "- Starbucks (cafe) $SBUX")
        #expect(LocalBriefRules.Brand(name: "Deli", kind: "shop", ticker: nil).line == "- Deli (shop)")
        let full = LocalBriefRules.prompt(place: mission, brands: [brand], sources: ["- s"])
        #expect(full.hasPrefix("Place: Mission, San Francisco, CA\n\n") && full.contains("- Starbucks (cafe) $SBUX"))
        #expect(LocalBriefRules.geocodeKey(lat: 37.76049, lng: -122.4194) == "37.760,-122.419")
        #expect(
            LocalBriefRules.sourceLine(bucket: "policy", title: "T", snippet: nil, url: "https://u")
                == "- [policy] T:  (https://u)")
    }

    static func fix(lat: Double = 1, at: String = "2026-12-01T11:00:00.000Z", token: String = "push_a")
        -> DeviceFixCommand
    {
        DeviceFixCommand(
            tokenId: token, userId: "u1", lat: lat, lng: 2, locatedAt: at, notificationsEnabled: true,
            localBrief: true, uncaughtNearby: false)
    }

    @Test func fixesAreValidatedAndNeverFromTheFuture() {
        #expect(MovementPolicy.acceptedFix(Self.fix(), now: Self.now) == "2026-12-01T11:00:00.000Z")
        #expect(
            MovementPolicy.acceptedFix(Self.fix(at: "2027-01-01T00:00:00.000Z"), now: Self.now)
                == "2026-12-01T12:00:00.000Z")
        #expect(MovementPolicy.acceptedFix(Self.fix(lat: 91), now: Self.now) == nil)
        #expect(MovementPolicy.acceptedFix(Self.fix(lat: .nan), now: Self.now) == nil)
        #expect(MovementPolicy.acceptedFix(Self.fix(at: "yesterday"), now: Self.now) == nil)
        #expect(MovementPolicy.acceptedFix(Self.fix(token: ""), now: Self.now) == nil)
    }

    @Test func aDeviceMovedWithoutAnAnchorOrTwoKilometresFromIt() {
        #expect(MovementPolicy.moved(anchorLat: nil, anchorLng: nil, lat: 0, lng: 0))
        #expect(MovementPolicy.moved(anchorLat: 0, anchorLng: nil, lat: 0, lng: 0))
        // 0.01° of latitude is about 1,112 m; 0.02° about 2,224 m.
        #expect(!MovementPolicy.moved(anchorLat: 0, anchorLng: 0, lat: 0.01, lng: 0))
        #expect(MovementPolicy.moved(anchorLat: 0, anchorLng: 0, lat: 0.02, lng: 0))
    }

    @Test func recordedFindsAreNormalised() {
        let event = FindRecordedEvent(
            findId: "f1", userId: "u1", brand: "Starbucks", ticker: nil, comparable: " sbux ", isPublic: true,
            geohash6: "9Q8YYK", createdAt: "2027-01-01T00:00:00.000Z", foundPrice: 0)
        let find = RecordedFind(event, now: Self.now)
        #expect(find.ticker == "SBUX" && find.sector == "Consumer Discretionary" && find.foundPrice == nil)
        #expect(find.geohash6 == "9q8yyk" && find.foundAt == Self.now)
        let other = RecordedFind(
            FindRecordedEvent(
                findId: "f2", userId: "u1", brand: "Local", ticker: nil, comparable: nil, isPublic: false,
                geohash6: "9q8", createdAt: "bad", foundPrice: 12.5),
            now: Self.now)
        #expect(other.ticker == nil && other.sector == nil && other.geohash6 == nil && other.foundPrice == 12.5)
    }

    @Test func evolutionQuotesEachSymbolOnceNewestFirstAtMostFifty() {
        let finds = ["B", "A", "B", nil, "C"].enumerated().map { i, ticker in
            FindRow(findId: "\(i)", brand: "b", ticker: ticker, sector: nil, geohash6: nil, foundPrice: 1)
        }
        #expect(FindEvolutionRules.symbols(finds) == ["B", "A", "C"])
        let many = (0..<60).map {
            FindRow(findId: "\($0)", brand: "b", ticker: "T\($0)", sector: nil, geohash6: nil, foundPrice: 1)
        }
        #expect(FindEvolutionRules.symbols(many).count == 50 && FindEvolutionRules.symbols(many).last == "T49")
    }

    @Test func alertsFireOnlyOnTheirQuoteAndPushOncePerWindow() {
        let alert = { (id: String, ticker: String, threshold: Double) in
            PriceAlert(
                id: id, ticker: ticker, kind: .priceAbove, threshold: threshold, note: nil, createdAt: "t",
                triggeredAt: nil, disabled: false)
        }
        let quote = Quote(symbol: "A", price: 100, change: 0, changePct: 0, currency: "USD", ts: "t", disclaimer: "d")
        let fired = PriceAlertRules.firing(
            [alert("1", "A", 90), alert("2", "A", 110), alert("3", "B", 1)], quotes: ["A": quote])
        #expect(fired.map(\.id) == ["1"])
        #expect(PriceAlertRules.scanSlot(userId: "u", day: "20261201", utcHour: 7) == "20261201:u:w0")
        #expect(PriceAlertRules.scanSlot(userId: "u", day: "20261201", utcHour: 13) == "20261201:u:w1")
        #expect(PriceAlertRules.scanSlot(userId: "u", day: "20261201", utcHour: 21) == "20261201:u:w2")
        #expect(PriceAlertRules.pushIdSeed(userId: "u", alerts: [alert("b", "A", 1), alert("a", "A", 1)]) == "u:a,b")
    }

    @Test func memoFactsAndSources() {
        let filing = SECFiling(form: "10-K", filedAt: "2026-11-01", accessionNumber: "1", url: "https://sec/1")
        let headline = MemoRules.Headline(title: "News", url: "https://n/1", publishedAt: "2026-11-30")
        #expect(
            MemoRules.sources(filings: [filing], headlines: [headline]) == [
                MemoSource(title: "10-K filed 2026-11-01", url: "https://sec/1"),
                MemoSource(title: "News", url: "https://n/1"),
            ])
        let quote = Quote(
            symbol: "A", price: 12.5, change: 0, changePct: 1.5, currency: "USD", ts: "t", disclaimer: "d")
        #expect(
            MemoRules.prompt(ticker: "A", quote: quote, filings: [filing], headlines: [headline])
                == "Ticker: A\nPrice 12.50 USD, +1.50% today\nFiling: 10-K on 2026-11-01\n"
                + "Headline (2026-11-30): News\n\nWrite the memo.")
        #expect(MemoRules.prompt(ticker: "A", quote: nil, filings: [], headlines: []) == "Ticker: A\n\nWrite the memo.")
        #expect(MemoRules.acceptable(String(repeating: "x", count: 100) + "  "))
        #expect(!MemoRules.acceptable("  " + String(repeating: "x", count: 99)))
    }
}
