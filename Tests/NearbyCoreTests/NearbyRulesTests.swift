import Contracts
import Finance
import Foundation
import NearbyCore
import Testing

/// Nearby's rules without a stack: cache headers, the items from a join and the captures, the read model's rows.
@Suite struct NearbyRulesTests {
    static let place = NearbyPlace(
        id: "p1", name: "Chipotle Mexican Grill", location: LatLng(lat: 40.7128, lng: -74.006), types: ["restaurant"])
    static let tile = "dr5reg"

    @Test func cacheControlFollowsTheCaller() {
        #expect(NearbyRules.cacheControl(signedIn: true) == "private, max-age=60")
        #expect(NearbyRules.cacheControl(signedIn: false) == "public, max-age=60, stale-while-revalidate=300")
    }

    @Test func aPlaceIsCapturedByBrandKeyOrTickerInItsOwnTileOnly() throws {
        let candidate = NearbyCandidate(place: Self.place, joinName: "Chipotle")
        let tile = try #require(NearbyRules.tile(Self.place.location))
        #expect(tile == Self.tile)
        #expect(
            NearbyRules.isCaptured(candidate, ticker: nil, in: [Capture(tile: tile, brandKey: "chipotle", ticker: nil)])
        )
        #expect(
            NearbyRules.isCaptured(
                candidate, ticker: "CMG", in: [Capture(tile: tile, brandKey: "other", ticker: "CMG")]))
        #expect(
            !NearbyRules.isCaptured(candidate, ticker: nil, in: [Capture(tile: tile, brandKey: "other", ticker: "CMG")])
        )
        #expect(
            !NearbyRules.isCaptured(
                candidate, ticker: "CMG", in: [Capture(tile: "u4pruy", brandKey: "chipotle", ticker: "CMG")]))
    }

    @Test func itemsCarryInvestablesOfPublicBrandsAndStateOnlyForSignedInCallers() {
        let candidates = [
            NearbyCandidate(place: Self.place, joinName: "Chipotle"),
            NearbyCandidate(
                place: NearbyPlace(id: "p2", name: "Corner Deli", location: Self.place.location, types: []),
                joinName: "Corner Deli"),
        ]
        let chipotle = BrandResolution(
            brand: Brand(name: "Chipotle", isPublic: true, ticker: Ticker(symbol: "CMG", exchange: "NYSE")), sources: []
        )
        let deli = BrandResolution(brand: Brand(name: "Corner Deli", isPublic: false), sources: [])
        let resolutions = [BrandSeed.normalize("Chipotle"): chipotle, BrandSeed.normalize("Corner Deli"): deli]
        let anonymous = NearbyRules.items(candidates, resolutions: resolutions, captures: nil)
        #expect(anonymous.investables == 1)
        #expect(anonymous.items.map(\.state) == [nil, nil])
        #expect(anonymous.items[0].investable?.brand.ticker?.symbol == "CMG")
        #expect(anonymous.items[0].investable?.sources.first?.provider == .manual)
        #expect(anonymous.items[1].investable == nil)
        let signedIn = NearbyRules.items(
            candidates, resolutions: resolutions,
            captures: [Capture(tile: Self.tile, brandKey: "other", ticker: "CMG")])
        #expect(signedIn.items.map(\.state) == [.captured, .seen])
    }

    @Test func aFindBecomesARowOnlyWithATileAndABrand() throws {
        func event(brand: String, ticker: String?, geohash6: String?) -> FindRecordedEvent {
            FindRecordedEvent(
                findId: "f1", userId: "u1", brand: brand, ticker: ticker, comparable: nil, isPublic: true,
                geohash6: geohash6, createdAt: "2027-01-15T08:00:00.000Z")
        }
        let row = try #require(CaptureRecord(event(brand: "Chipotle", ticker: " cmg ", geohash6: "DR5RU6")))
        #expect(row.capture == Capture(tile: "dr5ru6", brandKey: "chipotle", ticker: "CMG"))
        #expect(row.findId == "f1" && row.userId == "u1")
        #expect(row.capturedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(CaptureRecord(event(brand: "Chipotle", ticker: "  ", geohash6: "dr5ru6"))?.capture.ticker == nil)
        #expect(CaptureRecord(event(brand: "Chipotle", ticker: "CMG", geohash6: "dr5r")) == nil)
        #expect(CaptureRecord(event(brand: "Chipotle", ticker: "CMG", geohash6: nil)) == nil)
        #expect(CaptureRecord(event(brand: "  ", ticker: "CMG", geohash6: "dr5ru6")) == nil)
    }

    @Test func theProxyFilterMatchesTypeAndKeywordInNameOrBrand() {
        func command(type: String?, keyword: String?) -> PlacesProxyCommand {
            PlacesProxyCommand(lat: 40.7, lng: -74, radius: 500, keyword: keyword, type: type)
        }
        let types = ["cafe", "food"]
        #expect(
            PlacesProxyRules.matches(name: "Blue Bottle", brand: nil, types: types, command(type: nil, keyword: nil)))
        #expect(
            PlacesProxyRules.matches(
                name: "Blue Bottle", brand: nil, types: types, command(type: "cafe", keyword: "BOTTLE")))
        #expect(
            !PlacesProxyRules.matches(name: "Blue Bottle", brand: nil, types: types, command(type: "bar", keyword: nil))
        )
        #expect(
            PlacesProxyRules.matches(
                name: "Store 12", brand: "Starbucks", types: types, command(type: nil, keyword: "star")))
        #expect(
            !PlacesProxyRules.matches(name: "Store 12", brand: nil, types: types, command(type: nil, keyword: "star")))
        #expect(PlacesProxyRules.pageSize == 20)
    }
}
