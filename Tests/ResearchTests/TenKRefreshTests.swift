import Foundation
import ResearchCore
import Testing

/// The graph's 10-K rule without a server: EDGAR's ticker map and submissions read, and when a stored graph stops
/// being fresh.
struct TenKRefreshTests {
    @Test func theTickerMapIsReadUpperCased() {
        let body = #"{"0":{"cik_str":320193,"ticker":"aapl","title":"Apple Inc."},"1":{"cik_str":0,"ticker":"X"}}"#
        #expect(TenKRefresh.ciks(Array(body.utf8)) == ["AAPL": 320193])
        #expect(TenKRefresh.ciks(Array("[1]".utf8)) == nil)
    }

    @Test func theNewestAnnualReportWinsAndAmendmentsDoNotCount() throws {
        let body = #"""
            {"cik":"320193","filings":{"recent":{
              "accessionNumber":["a-4","a-3","a-2","a-1"],
              "filingDate":["2026-11-20","2026-11-01","2025-11-01","2024-11-01"],
              "form":["10-K/A","10-K","10-Q","10-K"],
              "acceptanceDateTime":["2026-11-20T16:00:00.000Z","2026-11-01T06:01:36.000Z","2025-11-01T06:00:00.000Z",""]
            }}}
            """#
        let filing = try #require(TenKRefresh.latest(Array(body.utf8)))
        #expect(filing.accession == "a-3")
        #expect(filing.acceptedAt == Date(timeIntervalSince1970: 1_793_512_896))  // 2026-11-01T06:01:36Z
        // Without an acceptance time the filing day counts, at 00:00 UTC.
        let dayOnly = #"{"filings":{"recent":{"accessionNumber":["b"],"filingDate":["2026-02-03"],"form":["10-K"]}}}"#
        #expect(TenKRefresh.latest(Array(dayOnly.utf8))?.acceptedAt == Date(timeIntervalSince1970: 1_770_076_800))
        let none = #"{"filings":{"recent":{"accessionNumber":["c"],"filingDate":["2026-02-03"],"form":["8-K"]}}}"#
        #expect(TenKRefresh.latest(Array(none.utf8)) == nil)
        #expect(TenKRefresh.latest(Array("{}".utf8)) == nil)
    }

    @Test func aTenKAcceptedAfterTheGraphEndsItsFreshness() {
        let day = 86_400.0
        // A rich graph, 10 days old: fresh without a 10-K, or with one older than the graph.
        #expect(TenKRefresh.isFresh(count: 5, ageSeconds: 10 * day, tenKAgeSeconds: nil))
        #expect(TenKRefresh.isFresh(count: 5, ageSeconds: 10 * day, tenKAgeSeconds: 40 * day))
        // A 10-K accepted 2 days ago, after the graph was made.
        #expect(!TenKRefresh.isFresh(count: 5, ageSeconds: 10 * day, tenKAgeSeconds: 2 * day))
        // The graph's own rules still hold: thin after a day, anything after 30 days, nothing stored.
        #expect(!TenKRefresh.isFresh(count: 2, ageSeconds: 2 * day, tenKAgeSeconds: nil))
        #expect(!TenKRefresh.isFresh(count: 5, ageSeconds: 31 * day, tenKAgeSeconds: 90 * day))
        #expect(!TenKRefresh.isFresh(count: 0, ageSeconds: 0, tenKAgeSeconds: nil))
    }
}
