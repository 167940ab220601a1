import BriefsCore
import Contracts
import Finance
import Foundation
import Testing

/// EDGAR's JSON as `SECRules` reads it: the ticker map and a company's recent filings.
@Suite struct SECRulesUnitTests {
    @Test func theTickerMapIsUpperCasedAndSkipsBadRows() throws {
        let body = #"""
            {"0": {"cik_str": 320193, "ticker": "aapl", "title": "Apple Inc."},
             "1": {"cik_str": 0, "ticker": "ZERO", "title": "Zero"},
             "2": {"cik_str": 789019, "ticker": null, "title": "No ticker"},
             "3": {"cik_str": 1018724, "ticker": "AMZN"}}
            """#
        let map = try #require(SECRules.companies(Array(body.utf8)))
        #expect(map == ["AAPL": .init(cik: 320193, name: "Apple Inc."), "AMZN": .init(cik: 1018724, name: "AMZN")])
        #expect(SECRules.companies(Array("[]".utf8)) == nil)
        #expect(SECRules.paddedCIK(320193) == "0000320193")
    }

    @Test func filingsKeepTheKnownFormsWithPlainDocumentsAtMostTen() throws {
        let forms = ["10-K", "S-1", "8-K", "10-Q", "10-Q"] + Array(repeating: "8-K", count: 12)
        let numbers =
            ["0000320193-24-000123", "x", "0000320193-24-000100", "", "0000320193-24-000090"]
            + (0..<12).map { "0000320193-23-0000\($0 + 10)" }
        let documents =
            ["aapl-10k.htm", "s1.htm", "8k.htm", "q.htm", "dir/q.htm"] + Array(repeating: "d.htm", count: 12)
        let dates = Array(repeating: "2024-11-01", count: 17)
        let json: [String: Any] = [
            "name": "Apple Inc.",
            "filings": [
                "recent": [
                    "accessionNumber": numbers, "filingDate": dates, "form": forms, "primaryDocument": documents,
                ]
            ],
        ]
        let body = try JSONSerialization.data(withJSONObject: json)
        let company = SECRules.Company(cik: 320193, name: "Apple")
        let response = try #require(
            SECRules.filings(Array(body), ticker: "AAPL", company: company, baseURL: "https://www.sec.gov"))
        #expect(response.ticker == "AAPL" && response.cik == "0000320193" && response.name == "Apple Inc.")
        #expect(response.filings.count == 10 && response.filings.map(\.form).prefix(3) == ["10-K", "8-K", "8-K"])
        #expect(
            response.filings.first?.url
                == "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-10k.htm")
        let unnamed = try #require(
            SECRules.filings(Array("{}".utf8), ticker: "AAPL", company: company, baseURL: "https://www.sec.gov"))
        #expect(unnamed.name == "Apple" && unnamed.filings.isEmpty)
        #expect(SECRules.filings(Array("[1]".utf8), ticker: "AAPL", company: company, baseURL: "b") == nil)
    }
}
