import Contracts
import Foundation
import ResearchCore
import Testing

/// The cockpit's rules without a server: which tickers a body names, and how Underlying's answer is read.
struct CockpitRulesTests {
    static func value(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test func tickersAreTrimmedUpperCasedDedupedAndCappedAtTen() throws {
        let body = try Self.value(#"{"tickers":[" msft","AAPL",5,"msft","TOOLONGX","1AB","brk.b",null]}"#)
        #expect(CockpitRules.tickers(body) == ["MSFT", "AAPL", "BRK.B"])
        let many = (0..<14).map { "\"T\(Character(UnicodeScalar(UInt8(65 + $0))))\"" }.joined(separator: ",")
        let capped = try #require(CockpitRules.tickers(try Self.value(#"{"tickers":[\#(many)]}"#)))
        #expect(capped.count == 10 && capped.first == "TA" && capped.last == "TJ")
        for refused in [#"{"tickers":[]}"#, #"{"tickers":"MSFT"}"#, #"{"tickers":[1,"???"]}"#, "[]", "{}"] {
            #expect(CockpitRules.tickers(try Self.value(refused)) == nil, "\(refused)")
        }
        #expect(CockpitRules.tickers(nil) == nil)
    }

    @Test func rowsComeFromTheRootOrTheFirstNamedArray() throws {
        let root = CockpitRules.response(
            try Self.value(#"[{"ticker":"ko"},{"symbol":"pep"}]"#), tickers: ["KO", "PEP"], origin: "http://u")
        #expect(root.rows.map(\.ticker) == ["KO", "PEP"] && root.rows.map(\.rank) == [1, 2])
        #expect(root.sourceUrl == "http://u/" && root.meta == nil && root.tickers == ["KO", "PEP"])
        // `rows` is empty, so `cockpit` is not read: the first key holding an array wins, in the original's order.
        let keyed = CockpitRules.response(
            try Self.value(#"{"data":[{"ticker":"X"}],"cockpit":[{"ticker":"Y"}],"meta":{"asOf":"d"}}"#),
            tickers: ["Y"], origin: "http://u")
        #expect(keyed.rows.map(\.ticker) == ["Y"] && keyed.meta == ["asOf": .string("d")])
        let none = CockpitRules.response(try Self.value(#"{"meta":"text","rows":{}}"#), tickers: ["Y"], origin: "o")
        #expect(none.rows.isEmpty && none.meta == nil)
    }

    @Test func aRowTakesEachFieldFromItsFirstSpelling() throws {
        let answer = try Self.value(
            #"""
            {"rows":[
              {"symbol":"nvda","total":8.5,"regime":"trend","ridge_growth":{"setup":"x","state":"rising"},
               "flow_compass":3,"poc":{"level":1},"rank":4},
              {"ticker":"amd","score":"high","lane":7,"ridge":null,"ridgeScore":2,"flow":[1],"auction":"balanced"}
            ]}
            """#)
        let rows = CockpitRules.response(answer, tickers: ["NVDA", "AMD"], origin: "o").rows
        #expect(
            rows[0]
                == CockpitRow(
                    rank: 4, ticker: "NVDA", score: 8.5, lane: "trend", ridge: .string("rising"), flow: .number(3),
                    auction: nil))
        #expect(
            rows[1]
                == CockpitRow(
                    rank: 2, ticker: "AMD", score: nil, lane: nil, ridge: .number(2), flow: nil,
                    auction: .string("balanced")))
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(rows[1])) as? [String: Any]
        #expect(encoded?.keys.sorted() == ["auction", "rank", "ridge", "ticker"])
    }
}
