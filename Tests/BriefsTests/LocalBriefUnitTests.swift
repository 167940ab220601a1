import BriefsCore
import Contracts
import Foundation
import Testing

/// Pure parts of the Local Economy Brief and the movement branch: Nominatim's field precedence, the cache key, the
/// paragraph rules, the outage shape and the `local_brief` push.
@Suite struct LocalBriefUnitTests {
    @Test func nominatimFieldPrecedence() {
        let parsed = LocalBriefRules.parseNominatim(
            Array(
                #"{"address":{"borough":"B","city_district":"CD","village":"V","county":"C","state":"S","postcode":"1"}}"#
                    .utf8))
        #expect(parsed == LocalBriefPlace(neighborhood: "CD", city: "V", state: "S", zip: "1"))
        let first = LocalBriefRules.parseNominatim(
            Array(#"{"address":{"neighbourhood":"N","suburb":"Su","city":"Ci","town":"T"}}"#.utf8))
        #expect(first == LocalBriefPlace(neighborhood: "N", city: "Ci"))
        #expect(LocalBriefRules.parseNominatim(Array(#"{"address":{"road":"Main St"}}"#.utf8)) == nil)
        #expect(LocalBriefRules.parseNominatim(Array(#"{"error":"Unable to geocode"}"#.utf8)) == nil)
        #expect(LocalBriefRules.parseNominatim(Array("not json".utf8)) == nil)
    }

    @Test func cacheKeyIsThreeDecimalsAndTheUTCDay() {
        let noon = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z
        #expect(LocalBriefRules.cacheKey(lat: 37.76049, lng: -122.4194, now: noon) == "v2:37.760,-122.419::20260528")
    }

    @Test func paragraphsAreCleanedAndCappedAtFour() {
        #expect(
            LocalBriefRules.paragraphs(["**One**", " ", "Two", "Three", "Four", "Five"]) == [
                "One", "Two", "Three", "Four",
            ])
        #expect(LocalBriefRules.outage(place: LocalBriefPlace(city: "Oakland")).count == 3)
        #expect(LocalBriefRules.outage(place: LocalBriefPlace()).first?.contains("this area") == true)
    }

    @Test func localBriefPushIsForThatTokenOnly() {
        let brief = LocalBrief(
            paragraphs: [String(repeating: "a", count: 300), "b", "c"], place: LocalBriefPlace(neighborhood: "Mission"),
            nearbyCount: 2, generatedAt: "2026-05-28T20:26:40.000Z")
        let push = MovementPolicy.localBriefPush(
            userId: "usr_1", tokenId: "push_a", lat: 1, lng: 2, brief: brief,
            now: Date(timeIntervalSince1970: 1_780_000_000))
        #expect(push.tokenId == "push_a" && push.userIds == ["usr_1"] && push.eventKey == .localBrief)
        #expect(push.title == "Local economy — Mission" && push.body.count == 220)
        #expect(push.dedupe.first?.slot == "local_brief:push_a" && push.data["lat"] == .number(1))
        #expect(push.id == "local_brief-20260528-push_a" && push.dedupe.first?.key == "20260528")
    }
}
