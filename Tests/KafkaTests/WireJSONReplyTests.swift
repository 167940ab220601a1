import Contracts
import FoundationEssentials
import Testing

@testable import Messaging

/// Real reply bodies, built by decoding contract-shaped JSON: the streaming encoder writes Foundation's bytes (up
/// to key order), `Reply.json` writes the streaming encoder's, and `JSONDecoder` reads them back to the same value.
@Suite("WireJSON over the service replies (no broker)")
struct WireJSONReplyTests {
    static let source =
        #"{"provider":"exa","url":"https://example.com/a/b?x=1&y=2","fetchedAt":"2026-12-02T04:00:00.000Z","confidence":"high"}"#
    static let bareSource = #"{"provider":"openrouter","fetchedAt":"2026-12-02T04:00:00.123Z","confidence":"medium"}"#
    static let comparable =
        #"{"ticker":"SBUX","name":"Starbucks Corporation","score":0.87,"reasoning":"Premium coffee chain; \"third wave\" peer.\nSimilar footprint – 日本 too.","sources":[\#(source),\#(bareSource)]}"#
    static let etf =
        #"{"ticker":"XLP","name":"Consumer Staples Select Sector SPDR","weight":0,"source":\#(bareSource)}"#
    static let weightedETF = #"{"ticker":"VDC","name":"Vanguard Consumer Staples","weight":0.0412,"source":\#(source)}"#
    static let privateBrand =
        #"{"name":"Blue Bottle Coffee","parent":"Nestlé","isPublic":false,"sector":"Consumer Staples","logo":"https://logo.example/blue-bottle.png"}"#
    static let publicBrand =
        #"{"name":"Starbucks","isPublic":true,"ticker":{"symbol":"SBUX","exchange":"NASDAQ"},"sector":"Consumer Discretionary"}"#
    static let investable =
        #"{"brand":\#(publicBrand),"comparables":[\#(comparable)],"etfs":[\#(etf),\#(weightedETF)],"confidence":"high","sources":[\#(source)],"quote":{"symbol":"SBUX","price":97.31,"change":-1.2,"changePct":-1.2183,"currency":"USD","ts":"2026-12-02T04:00:00.000Z","disclaimer":"Delayed quote.","name":"Starbucks Corporation","provider":"massive","freshness":"delayed"},"rarity":"rare","verdict":{"exposure":"direct","probability":0.72,"worth_a_look":0.6,"watchlisted":true}}"#

    static let resolveComparable =
        #"{"brand":\#(privateBrand),"comparables":[\#(comparable),\#(comparable)],"etfs":[\#(etf),\#(weightedETF)]}"#
    static let identify =
        #"{"identification":{"visibleText":["STARBUCKS","COFFEE","€3,50"],"detected":[{"brand":"Starbucks","product":"Latte","sector":"Restaurants","confidence":"high"},{"confidence":"low"}],"location":{"lat":48.8566,"lng":2.3522},"modelUsed":"ocr:tesseract"},"investables":[\#(investable),{"brand":\#(privateBrand),"confidence":"low","sources":[],"comparables":[],"etfs":[]}]}"#
    static let nearby =
        #"{"items":[{"place":{"id":"osm:node/1","name":"Café \"Le Zinc\"","location":{"lat":-33.865143,"lng":151.2099},"types":["cafe","food"]},"investable":\#(investable),"state":"captured"},{"place":{"id":"g:2","name":"Shop","location":{"lat":0,"lng":-0.5},"types":[]}}],"sources":[{"provider":"overpass","attribution":"© OpenStreetMap contributors","fetchedAt":"2026-12-02T03:59:00.000Z"}]}"#
    static let rating =
        #"{"ticker":"SBUX","status":"ok","rating":{"action":"buy","strength":"normal","conviction":0.64,"one_line":"Traffic recovering; margins/\"value\" tailwinds."},"probabilities":{"strong_sell":0.05,"sell":0.1,"hold":0.25,"buy":0.4,"strong_buy":0.2},"confidence":0.7,"drivers":[{"name":"momentum","direction":"up","weight":0.3},{"name":"local_demand","direction":"flat","weight":0.125}],"evidence":[{"source":"quote","summary":"Up 3% on the week.","ref":"massive:SBUX"},{"source":"synthesis_memo","summary":"Line one.\nLine two.\ttabbed"}],"inputs_used":["quote","ratios"],"as_of":"2026-12-02T04:00:00.000Z","disclaimer":"AI-generated research signal, not investment advice."}"#
    static let unrated =
        #"{"ticker":"XYZ","status":"insufficient_signal","rating":null,"probabilities":null,"confidence":0,"drivers":[],"evidence":[],"inputs_used":[],"as_of":"2026-12-02T04:00:00.000Z","disclaimer":"AI-generated research signal, not investment advice."}"#
    static let news =
        #"{"items":[{"title":"Starbucks \\ earnings","url":"https://news.example/a?b=c","source":"Reuters","publishedAt":"2026-12-01T22:00:00.000Z","jev_materiality":{"level":"material","score":0.91,"confidence":0.8}},{"title":"Minor","url":"https://n.example/","source":"AP","publishedAt":"2026-12-01T21:00:00.000Z"}],"provider":"jev","ts":"2026-12-02T04:00:00.000Z","materiality":null}"#
    static let finds =
        #"{"finds":[{"id":"f1","brand":"Starbucks","ticker":"SBUX","isPublic":true,"confidence":"high","lat":40.7128,"lng":-74.006,"foundPrice":97.31,"createdAt":"2026-12-01T10:00:00.000Z","rarity":"common"},{"id":"f2","brand":"Blue Bottle","isPublic":false,"comparable":"SBUX","confidence":"medium","createdAt":"2026-12-01T11:00:00.000Z"}],"count":2}"#
    static let dex =
        #"{"sectors":[{"sector":"Consumer Staples","found":3,"total":40},{"sector":"Tech","found":0,"total":75}],"tilesVisited":12,"totalFinds":3,"rarityCounts":{"common":2,"uncommon":0,"rare":1,"legendary":0}}"#
    static let pushPrefs =
        #"{"prefs":{"identify_done":true,"quietHours":{"from":22,"to":7},"tags":["a","b"]},"tokenId":null}"#

    private func check<T: Codable & Equatable>(_ type: T.Type, _ json: String) throws {
        let value = try JSONDecoder().decode(T.self, from: Data(json.utf8))
        let ours = try StreamingJSONEncoder.encode(value)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let theirs = Array(try encoder.encode(value))
        #expect(CanonicalJSON.of(ours) != nil)
        #expect(CanonicalJSON.of(ours) == CanonicalJSON.of(theirs), "\(String(decoding: ours, as: UTF8.self))")
        #expect(try JSONDecoder().decode(T.self, from: Data(ours)) == value)
        #expect(Reply.json(200, value).body == ours)
    }

    @Test func resolveComparable() throws {
        try check(ResolveComparableResponse.self, Self.resolveComparable)
        // The whole body, key order included, is the contract's order (the fixture is written in it).
        let value = try JSONDecoder().decode(ResolveComparableResponse.self, from: Data(Self.resolveComparable.utf8))
        #expect(String(decoding: try StreamingJSONEncoder.encode(value), as: UTF8.self) == Self.resolveComparable)
    }

    @Test func identify() throws { try check(IdentifyResponse.self, Self.identify) }
    @Test func nearby() throws { try check(NearbyResponse.self, Self.nearby) }
    @Test func rating() throws {
        try check(RatingResponse.self, Self.rating)
        try check(RatingResponse.self, Self.unrated)
    }
    @Test func news() throws { try check(NewsResponse.self, Self.news) }
    @Test func findsAndDex() throws {
        try check(FindsResponse.self, Self.finds)
        try check(DexResponse.self, Self.dex)
    }
    @Test func pushPrefs() throws {
        try check(PushPrefsReadResponse.self, Self.pushPrefs)
        try check(PushPrefsReadResponse.self, #"{"prefs":{},"tokenId":"tok-1"}"#)
    }
}
