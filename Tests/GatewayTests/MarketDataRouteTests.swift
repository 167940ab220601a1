import Contracts
import Foundation
import HTTPServer
import Testing

@testable import GatewayKit

/// The market-data surface's validation: each query either becomes the Rating command with the defaults applied or
/// is refused with the contract's 400 text.
@Suite("Gateway routes: market data (in process)")
struct MarketDataRouteTests {
    static let cases: [RouteCase] = [
        RouteCase(
            "GET", "/v1/market-data/capabilities",
            .command(.rating, "market-data.capabilities.get.v1", key: "capabilities")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=aapl&from=2024-01-02&to=2024-03-01&timespan=Week",
            .command(
                .rating, "market-data.aggregates.get.v1", key: "AAPL",
                fields: [
                    "symbol": s("AAPL"), "timespan": s("week"), "multiplier": n(1), "from": s("2024-01-02"),
                    "to": s("2024-03-01"), "adjusted": .bool(true),
                ])),
        RouteCase(
            "GET", "/v1/market-data/aggregates",
            query:
                "symbol=O:AAPL250117C00150000&from=2024-02-29&to=2024-02-29&adjusted=false&multiplier=5&cursor=YWJj%3D",
            .command(
                .rating, "market-data.aggregates.get.v1", key: "O:AAPL250117C00150000",
                fields: ["adjusted": .bool(false), "multiplier": n(5), "cursor": s("YWJj=")])),
        RouteCase("GET", "/v1/market-data/aggregates", .rejected(400, "symbol required")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=A&timespan=second", .rejected(400, "invalid timespan")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=A&multiplier=1.5",
            .rejected(400, "multiplier must be a positive integer")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=A&multiplier=1001",
            .rejected(400, "multiplier must be a positive integer")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=A&from=2023-02-29&to=2023-03-01",
            .rejected(400, "from and to must be valid dates")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=A&from=2024-03-02&to=2024-03-01",
            .rejected(400, "from must be on or before to")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=A&timespan=minute&from=2023-01-01&to=2024-01-01",
            .rejected(400, "aggregate range too large")),
        RouteCase(
            "GET", "/v1/market-data/aggregates", query: "symbol=A&cursor=a%20b", .rejected(400, "invalid cursor")),
        RouteCase(
            "GET", "/v1/financials/ratios", query: "ticker=msft",
            .command(
                .rating, "financials.ratios.get.v1", key: "MSFT", fields: ["ticker": s("MSFT"), "limit": n(1)])),
        RouteCase(
            "GET", "/v1/financials/ratios", query: "ticker=BRK.B&limit=500&cursor=opaque-1",
            .command(
                .rating, "financials.ratios.get.v1", key: "BRK.B",
                fields: ["limit": n(500), "cursor": s("opaque-1")])),
        RouteCase("GET", "/v1/financials/ratios", .rejected(400, "ticker required")),
        RouteCase(
            "GET", "/v1/financials/ratios", query: "ticker=1BAD", .rejected(400, "invalid financial ratios query")),
        RouteCase(
            "GET", "/v1/financials/ratios", query: "ticker=A&limit=501",
            .rejected(400, "invalid financial ratios query")),
        RouteCase(
            "GET", "/v1/financials/ratios", query: "ticker=A&cursor=", .rejected(400, "invalid financial ratios query")),
        RouteCase(
            "GET", "/v1/market-events", query: "ticker=aapl&limit=7.9",
            .command(.rating, "market-events.get.v1", key: "AAPL", fields: ["ticker": s("AAPL"), "limit": n(7)])),
        RouteCase(
            "GET", "/v1/market-events", query: "from=2024-01-01&to=2024-12-31&limit=abc",
            .command(
                .rating, "market-events.get.v1", key: "events",
                fields: ["from": s("2024-01-01"), "to": s("2024-12-31"), "limit": n(100)])),
        RouteCase(
            "GET", "/v1/market-events", query: "ticker=A&limit=9999",
            .command(.rating, "market-events.get.v1", key: "A", fields: ["limit": n(500)])),
        RouteCase("GET", "/v1/market-events", .rejected(400, "ticker or bounded date range required")),
        RouteCase(
            "GET", "/v1/market-events", query: "from=2024-01-01",
            .rejected(400, "ticker or bounded date range required")),
        RouteCase(
            "GET", "/v1/market-events", query: "ticker=A&from=2024-13-01",
            .rejected(400, "from and to must be valid dates")),
        RouteCase(
            "GET", "/v1/market-events", query: "from=2024-02-01&to=2024-01-01",
            .rejected(400, "from must be on or before to")),
        RouteCase(
            "GET", "/v1/market-events", query: "from=2023-01-01&to=2024-01-03",
            .rejected(400, "event date range too large")),
        RouteCase(
            "GET", "/v1/options/chain",
            query: "ticker=aapl&strike_price=150&contract_type=call&expiration_date=2025-01-17",
            .command(
                .rating, "options.chain.get.v1", key: "AAPL",
                fields: [
                    "underlying": s("AAPL"), "strikePrice": n(150), "contractType": s("call"),
                    "expirationDate": s("2025-01-17"), "limit": n(250),
                ])),
        RouteCase("GET", "/v1/options/chain", .rejected(400, "underlying required")),
        RouteCase(
            "GET", "/v1/options/chain", query: "underlying=1X", .rejected(400, "underlying must be a valid ticker")),
        RouteCase(
            "GET", "/v1/options/chain", query: "underlying=A&strike_price=-1",
            .rejected(400, "strike_price must be a number")),
        RouteCase(
            "GET", "/v1/options/chain", query: "underlying=A&limit=251", .rejected(400, "invalid options query")),
        RouteCase(
            "GET", "/v1/options/chain", query: "underlying=A&contract_type=both",
            .rejected(400, "invalid options query")),
        RouteCase(
            "GET", "/v1/options/contracts", query: "underlying=spy&expired=true&as_of=2024-01-02",
            .command(
                .rating, "options.contracts.list.v1", key: "SPY",
                fields: ["underlying": s("SPY"), "expired": .bool(true), "asOf": s("2024-01-02"), "limit": n(100)])),
        RouteCase(
            "GET", "/v1/options/contracts", query: "ticker=AAPL", .rejected(400, "invalid options query")),
        RouteCase(
            "GET", "/v1/options/contracts", query: "limit=1001", .rejected(400, "invalid options query")),
        RouteCase(
            "GET", "/v1/options/contracts/o:aapl250117c00150000",
            .command(
                .rating, "options.contract.get.v1", key: "O:AAPL250117C00150000",
                fields: ["ticker": s("O:AAPL250117C00150000")])),
        RouteCase("GET", "/v1/options/contracts/AAPL", .rejected(400, "contract ticker must be valid")),
        // Present means checked, as the document's patterns say: an empty filter is refused, not ignored.
        RouteCase("GET", "/v1/options/contracts", query: "ticker=", .rejected(400, "invalid options query")),
        RouteCase("GET", "/v1/options/contracts", query: "underlying=%20", .rejected(400, "invalid options query")),
        RouteCase(
            "GET", "/v1/options/summary", query: "underlying=aapl&contract=O:AAPL250117C00150000",
            .command(
                .rating, "options.summary.get.v1", key: "AAPL",
                fields: ["underlying": s("AAPL"), "contract": s("O:AAPL250117C00150000")])),
        RouteCase(
            "GET", "/v1/options/summary", query: "underlying=aapl", .rejected(400, "underlying and contract required")),
        RouteCase(
            "GET", "/v1/options/bars", query: "ticker=O:SPY1&from=2024-01-01&to=2024-01-31&multiplier=2",
            .command(
                .rating, "options.bars.get.v1", key: "O:SPY1",
                fields: ["from": s("2024-01-01"), "multiplier": n(2), "timespan": s("day"), "adjusted": .bool(true)])),
        RouteCase(
            "GET", "/v1/options/bars", query: "ticker=O:SPY1&from=2024-01-01",
            .rejected(400, "invalid option bars query")),
        RouteCase(
            "GET", "/v1/options/bars", query: "ticker=O:SPY1&from=2024-02-30&to=2024-03-01",
            .rejected(400, "invalid option bars date")),
        RouteCase(
            "GET", "/v1/options/bars", query: "ticker=O:SPY1&from=2024-03-02&to=2024-03-01",
            .rejected(400, "from must be on or before to")),
    ]

    @Test(arguments: cases) func route(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test func linkOutsAnswerAtTheEdgeWithTheirCacheHeader() async throws {
        let gateway = try GatewayUnderTest()
        let options = await gateway.send("GET", "/v1/options", query: "ticker=aapl")
        #expect(options.status == 200)
        let link = try JSONDecoder().decode([String: String].self, from: Data(options.body))
        #expect(
            link == [
                "ticker": "aapl", "linkOut": "https://github.com/jawauntb/option_derivation",
                "note": "options derivation deferred to v0.2",
            ])
        #expect(
            options.headers.first { $0.0 == "Cache-Control" }?.1 == "public, max-age=300, stale-while-revalidate=3600")
        let missing = await gateway.send("GET", "/v1/options")
        #expect(missing.status == 400)
        #expect(String(decoding: missing.body, as: UTF8.self) == #"{"error":"ticker required"}"#)
        let underlying = await gateway.send("GET", "/v1/underlying", query: "brand=Blue%20Bottle")
        #expect(underlying.status == 200)
        let body = try JSONDecoder().decode([String: String].self, from: Data(underlying.body))
        #expect(body["brand"] == "Blue Bottle")
        #expect(body["sector"] == nil)
        #expect(body["linkOut"] == "https://underlying-terminal-production.up.railway.app/")
        #expect(gateway.transport.commands.isEmpty)
    }

    @Test func theDefaultWindowIsTheLastThirtyDays() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2024-03-10T12:00:00Z"))
        let command = try MarketDataInput.aggregates(["symbol": "aapl"], today: now).get()
        #expect(command.from == "2024-02-09")
        #expect(command.to == "2024-03-10")
    }

    @Test func cursorsAreCodePointsWithoutWhiteSpace() {
        #expect(MarketDataInput.cursor("YWJj=") == "YWJj=")
        #expect(MarketDataInput.cursor("\u{00A0}x") == nil)  // no-break space: white space to the document's \S
        #expect(MarketDataInput.cursor("a\u{2028}") == nil)
        #expect(MarketDataInput.cursor("a\u{7F}") == nil)
        #expect(MarketDataInput.cursor("Ï]Ā\u{8A}") != nil)  // a C1 control is not white space
        // 2048 code points pass whatever their grapheme count; 2049 do not.
        #expect(MarketDataInput.cursor(String(repeating: "e\u{301}", count: 1024)) != nil)
        #expect(MarketDataInput.cursor(String(repeating: "e\u{301}", count: 1024) + "x") == nil)
    }

    @Test func datesAreRealCalendarDays() {
        #expect(MarketDate.parse("2024-02-29")?.text == "2024-02-29")
        #expect(MarketDate.parse("1900-02-29") == nil)
        #expect(MarketDate.parse("2000-02-29") != nil)
        #expect(MarketDate.parse("2024-04-31") == nil)
        #expect(MarketDate.parse("2024-4-01") == nil)
        #expect(MarketDate.parse("２０２４-01-01") == nil)
        let a = MarketDate.parse("1970-01-01")
        let b = MarketDate.parse("2024-01-01")
        #expect(a?.ordinal == 0)
        #expect(b?.ordinal == 19_723)
    }
}
