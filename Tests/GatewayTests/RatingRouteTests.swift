import Contracts
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// Routes the Rating service answers: rating, news, search intent and the ticker page.
@Suite("Gateway routes: Rating (in process)")
struct RatingRouteTests {
    static let chartTypes =
        "price|regression|ridge|auction|performance|ridge-growth|flow-compass|torque|portfolio|volatility"

    static let cases: [RouteCase] = [
        RouteCase(
            "GET", "/v1/rating/mcd", .command(.rating, "rating.get.v1", key: "MCD", fields: ["ticker": s("MCD")])),
        RouteCase(
            "GET", "/v1/rating/BRK.B", .command(.rating, "rating.get.v1", key: "BRK.B", fields: ["ticker": s("BRK.B")])),
        RouteCase("GET", "/v1/rating/1BAD", .rejected(400, "ticker required (e.g. MCD)")),
        RouteCase("GET", "/v1/rating/TOOLONG", .rejected(400, "ticker required (e.g. MCD)")),
        RouteCase(
            "GET", "/v1/news", query: "ticker=aapl",
            .command(.rating, "news.get.v1", key: "AAPL", fields: ["ticker": s("AAPL"), "limit": n(6)])),
        RouteCase(
            "GET", "/v1/news", query: "ticker=aapl&limit=25",
            .command(.rating, "news.get.v1", key: "AAPL", fields: ["limit": n(25)])),
        RouteCase("GET", "/v1/news", query: "ticker=aapl&limit=99", .rejected(400, "limit must be between 1 and 25")),
        RouteCase(
            "GET", "/v1/news", query: "ticker=aapl&materiality=huge",
            .rejected(400, "materiality must be one of noise, minor, material")),
        RouteCase("GET", "/v1/news", .rejected(400, "ticker required")),
        RouteCase("GET", "/v1/news", query: "ticker=%20", .rejected(400, "ticker required")),
        RouteCase("GET", "/v1/news", query: "ticker=A&limit=inf", .rejected(400, "limit must be a finite number")),
        RouteCase(
            "POST", "/v1/search/intent", body: #"{"q":"  coffee   shops ","lat":40.7,"lng":-74}"#,
            .command(
                .rating, "search.intent.v1", key: "coffee shops",
                fields: ["q": s("coffee shops"), "lat": n(40.7), "lng": n(-74)])),
        RouteCase(
            "POST", "/v1/search/intent", body: #"{"q":"Coffee","lat":400,"lng":0}"#,
            .rejected(400, "lat must be between -90 and 90")),
        RouteCase(
            "POST", "/v1/search/intent", body: #"{"q":"Coffee","lat":40}"#,
            .command(.rating, "search.intent.v1", key: "coffee", fields: ["q": s("Coffee")])),
        RouteCase("POST", "/v1/search/intent", body: #"{"q":"   "}"#, .rejected(400, "q required (1-200 chars)")),
        RouteCase("POST", "/v1/search/intent", body: #"{"lat":1}"#, .rejected(400, "q required (1-200 chars)")),
        RouteCase("POST", "/v1/search/intent", .rejected(400, "q required (1-200 chars)")),
        RouteCase(
            "GET", "/v1/quote", query: "symbol=aapl",
            .command(.rating, "quote.get.v1", key: "AAPL", fields: ["symbol": s("AAPL")])),
        RouteCase("GET", "/v1/quote", .rejected(400, "symbol required")),
        RouteCase(
            "GET", "/v1/quote", query: "symbol=" + String(repeating: "A", count: 33), .rejected(400, "invalid symbol")),
        RouteCase(
            "GET", "/v1/quote-history", query: "symbol=aapl",
            .command(
                .rating, "quote-history.get.v1", key: "AAPL",
                fields: ["symbol": s("AAPL"), "period": s("1mo"), "interval": s("1d")])),
        RouteCase(
            "GET", "/v1/quote-history", query: "symbol=aapl&period=5d&interval=15m",
            .command(.rating, "quote-history.get.v1", key: "AAPL", fields: ["period": s("5d"), "interval": s("15m")])),
        RouteCase("GET", "/v1/quote-history", .rejected(400, "symbol required")),
        RouteCase(
            "GET", "/v1/quote-history", query: "symbol=aapl&period=7y",
            .rejected(400, "period must be 5d, 1mo, 3mo, 6mo, 1y or 2y")),
        RouteCase(
            "GET", "/v1/quote-history", query: "symbol=aapl&interval=2h",
            .rejected(400, "interval must be 15m, 1d, or 1w")),
        RouteCase(
            "GET", "/v1/quote-history", query: "symbol=aapl&period=1y&interval=15m",
            .rejected(400, "interval 15m needs period 5d or 1mo")),
        RouteCase(
            "GET", "/v1/chart/price", query: "ticker=aapl&month=3",
            .command(
                .rating, "chart.get.v1", key: "AAPL",
                fields: ["type": s("price"), "ticker": s("AAPL"), "interval": s("1d"), "month": n(3)])),
        RouteCase(
            "GET", "/v1/chart/ridge_growth", query: "ticker=aapl",
            .command(.rating, "chart.get.v1", key: "AAPL", fields: ["type": s("ridge-growth")])),
        RouteCase(
            "GET", "/v1/chart/pie", query: "ticker=aapl", .rejected(400, "unsupported chart type (use \(chartTypes))")),
        RouteCase("GET", "/v1/chart/price", .rejected(400, "ticker required (e.g. MCD)")),
        RouteCase(
            "GET", "/v1/chart/price", query: "ticker=aapl&period=9y",
            .rejected(400, "period must be 5d, 1mo, 3mo, 6mo, 1y or 2y")),
        RouteCase(
            "GET", "/v1/chart/price", query: "ticker=aapl&interval=1h",
            .rejected(400, "interval must be 15m, 1d, or 1w")),
        RouteCase("GET", "/v1/chart/price", query: "ticker=aapl&month=13", .rejected(400, "month must be 1-12")),
        RouteCase("GET", "/v1/chart/price", query: "ticker=aapl&month=2.5", .rejected(400, "month must be 1-12")),
        RouteCase(
            "GET", "/v1/analysis/aapl", .command(.rating, "analysis.get.v1", key: "AAPL", fields: ["ticker": s("AAPL")])
        ),
        RouteCase("GET", "/v1/analysis/1x", .rejected(400, "ticker required (e.g. MCD)")),
        RouteCase(
            "GET", "/v1/prism/aapl/summary",
            .command(
                .rating, "research-summary.get.v1", key: "AAPL", fields: ["engine": s("prism"), "ticker": s("AAPL")])),
        RouteCase(
            "GET", "/v1/situate/msft/summary",
            .command(
                .rating, "research-summary.get.v1", key: "MSFT", fields: ["engine": s("situate"), "ticker": s("MSFT")])),
        RouteCase("GET", "/v1/prism/1x/summary", .rejected(400, "invalid ticker")),
        RouteCase("GET", "/v1/situate/1x/summary", .rejected(400, "invalid ticker")),
    ]

    @Test(arguments: cases) func route(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test func aBadSummaryTickerNamesItsEngine() async throws {
        let gateway = try GatewayUnderTest()
        for engine in ["prism", "situate"] {
            let response = await gateway.send("GET", "/v1/\(engine)/1x/summary")
            #expect(
                String(decoding: response.body, as: UTF8.self)
                    == #"{"error":"invalid ticker","code":"\#(engine)_bad_request"}"#)
        }
    }
}
