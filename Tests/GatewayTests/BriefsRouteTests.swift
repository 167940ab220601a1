import Contracts
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// Routes Briefs answers: watchlists, news reading, price alerts, the backtest, memos and local briefs.
@Suite("Gateway routes: Briefs (in process)")
struct BriefsRouteTests {
    static let memo = "a memo of more than twenty characters"
    static let brief = "a brief of at least twenty characters"

    static let watchlist: [RouteCase] = [
        RouteCase(
            "GET", "/v1/watchlist/lists", signedIn: true,
            .command(.briefs, "watchlist.lists.v1", key: user, fields: ["userId": s(user)])),
        RouteCase("GET", "/v1/watchlist/lists", .rejected(401, "missing bearer token")),
        RouteCase(
            "POST", "/v1/watchlist/lists", body: #"{"name":"  Tech  "}"#, signedIn: true,
            .command(.briefs, "watchlist.lists.create.v1", key: user, fields: ["userId": s(user), "name": s("Tech")])),
        RouteCase(
            "POST", "/v1/watchlist/lists", body: #"{"name":" "}"#, signedIn: true, .rejected(400, "name required")),
        RouteCase("POST", "/v1/watchlist/lists", body: "{}", signedIn: true, .rejected(400, "name required")),
        RouteCase(
            "PATCH", "/v1/watchlist/lists/wl_1", body: #"{"name":"New"}"#, signedIn: true,
            .command(.briefs, "watchlist.lists.rename.v1", key: user, fields: ["listId": s("wl_1"), "name": s("New")])),
        RouteCase("PATCH", "/v1/watchlist/lists/wl_1", body: "{}", signedIn: true, .rejected(400, "name required")),
        RouteCase(
            "PATCH", "/v1/watchlist/lists/a.b", body: #"{"name":"New"}"#, signedIn: true,
            .rejected(404, "list not found")),
        RouteCase(
            "POST", "/v1/watchlist/lists/wl_1/default", signedIn: true,
            .command(.briefs, "watchlist.lists.default.v1", key: user, fields: ["listId": s("wl_1")])),
        RouteCase("POST", "/v1/watchlist/lists/a.b/default", signedIn: true, .rejected(404, "list not found")),
        RouteCase(
            "DELETE", "/v1/watchlist/lists/wl_1", signedIn: true,
            .command(.briefs, "watchlist.lists.delete.v1", key: user, fields: ["listId": s("wl_1")])),
        RouteCase("DELETE", "/v1/watchlist/lists/a.b", signedIn: true, .rejected(404, "list not found")),
        RouteCase(
            "GET", "/v1/watchlist/list-summary", query: "listId=wl_1", signedIn: true,
            .command(.briefs, "watchlist.summary.v1", key: user, fields: ["listId": s("wl_1")])),
        RouteCase(
            "GET", "/v1/watchlist/list-summary", signedIn: true,
            .command(.briefs, "watchlist.summary.v1", key: user, fields: ["userId": s(user)])),
        RouteCase(
            "GET", "/v1/watchlist/list-summary", query: "listId=a.b", signedIn: true, .rejected(404, "list not found")),
        RouteCase(
            "POST", "/v1/watchlist/move", body: #"{"ticker":"aapl","fromListId":"wl_1","toListId":"wl_2"}"#,
            signedIn: true,
            .command(
                .briefs, "watchlist.move.v1", key: user,
                fields: ["ticker": s("AAPL"), "fromListId": s("wl_1"), "toListId": s("wl_2")])),
        RouteCase(
            "POST", "/v1/watchlist/move", body: #"{"ticker":"aapl"}"#, signedIn: true,
            .rejected(400, "ticker + toListId required")),
        RouteCase(
            "POST", "/v1/watchlist/move", body: #"{"ticker":"aapl","toListId":"a.b"}"#, signedIn: true,
            .rejected(404, "list not found")),
        RouteCase(
            "GET", "/v1/watchlist/brief", query: "listId=wl_1", signedIn: true,
            .command(.briefs, "watchlist.brief.v1", key: user, fields: ["listId": s("wl_1")])),
        RouteCase("GET", "/v1/watchlist/brief", query: "listId=a.b", signedIn: true, .rejected(404, "list not found")),
        RouteCase(
            "GET", "/v1/watchlist/headlines", query: "materiality=high", signedIn: true,
            .command(.briefs, "watchlist.headlines.v1", key: user, fields: ["userId": s(user)])),
        RouteCase(
            "GET", "/v1/watchlist/headlines", query: "listId=a.b", signedIn: true, .rejected(404, "list not found")),
        RouteCase(
            "POST", "/v1/watchlist/add", body: #"{"ticker":" aapl ","name":"Apple","listId":"wl_1"}"#, signedIn: true,
            .command(
                .briefs, "watchlist.add.v1", key: user,
                fields: ["ticker": s("AAPL"), "name": s("Apple"), "listId": s("wl_1")])),
        RouteCase("POST", "/v1/watchlist/add", body: "{}", signedIn: true, .rejected(400, "ticker required")),
        RouteCase(
            "POST", "/v1/watchlist/add", body: #"{"ticker":"a/b"}"#, signedIn: true, .rejected(400, "invalid ticker")),
        RouteCase(
            "POST", "/v1/watchlist/add", body: #"{"ticker":"aapl","source":"bogus"}"#, signedIn: true,
            .rejected(400, "invalid source")),
        RouteCase(
            "POST", "/v1/watchlist/add", body: #"{"ticker":"aapl","listId":"a.b"}"#, signedIn: true,
            .rejected(404, "list not found")),
        RouteCase(
            "GET", "/v1/watchlist", signedIn: true,
            .command(.briefs, "watchlist.entries.v1", key: user, fields: ["userId": s(user)])),
        RouteCase("GET", "/v1/watchlist", .rejected(401, "missing bearer token")),
        RouteCase(
            "DELETE", "/v1/watchlist/aapl", signedIn: true,
            .command(.briefs, "watchlist.remove.v1", key: user, fields: ["ticker": s("AAPL")])),
        RouteCase("DELETE", "/v1/watchlist/a%2Fb", signedIn: true, .rejected(400, "invalid ticker")),
        RouteCase(
            "POST", "/v1/watchlist/aapl/memo", body: #"{"memo":"\#(memo)","provider":"me"}"#, signedIn: true,
            .command(
                .briefs, "watchlist.memo.v1", key: user,
                fields: ["ticker": s("AAPL"), "memo": s(memo), "provider": s("me")])),
        RouteCase(
            "POST", "/v1/watchlist/aapl/memo", body: #"{"memo":"short"}"#, signedIn: true,
            .rejected(400, "memo required (min 20 chars)")),
        RouteCase(
            "GET", "/v1/news/read", query: "url=https://example.com/a",
            .command(.briefs, "news.read.v1", key: "https://example.com/a", fields: ["url": s("https://example.com/a")])
        ),
        RouteCase("GET", "/v1/news/read", .rejected(400, "url required")),
        RouteCase("GET", "/v1/news/read", query: "url=ftp://example.com/a", .rejected(400, "url required")),
    ]

    static let alertsBacktestMemo: [RouteCase] = [
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"aapl","kind":"price_above","threshold":200,"note":" hi "}"#,
            signedIn: true,
            .command(
                .briefs, "alerts.create.v1", key: user,
                fields: ["ticker": s("AAPL"), "kind": s("price_above"), "threshold": n(200), "note": s("hi")])),
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"aapl","kind":"pct_move","threshold":" 5 "}"#, signedIn: true,
            .command(.briefs, "alerts.create.v1", key: user, fields: ["threshold": n(5)])),
        RouteCase("POST", "/v1/alerts", body: "{}", signedIn: true, .rejected(400, "ticker required")),
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"aapl","kind":"up"}"#, signedIn: true,
            .rejected(400, "kind must be one of price_above, price_below, pct_move")),
        RouteCase(
            "POST", "/v1/alerts", body: #"{"ticker":"aapl","kind":"price_below","threshold":"x"}"#, signedIn: true,
            .rejected(400, "threshold must be a finite number")),
        RouteCase("POST", "/v1/alerts", body: "{}", .rejected(401, "missing bearer token")),
        RouteCase(
            "GET", "/v1/alerts", signedIn: true,
            .command(.briefs, "alerts.list.v1", key: user, fields: ["userId": s(user)])),
        RouteCase(
            "GET", "/v1/alerts/check", signedIn: true,
            .command(.briefs, "alerts.check.v1", key: user, fields: ["userId": s(user)])),
        RouteCase(
            "DELETE", "/v1/alerts/alt_1", signedIn: true,
            .command(.briefs, "alerts.delete.v1", key: user, fields: ["alertId": s("alt_1")])),
        RouteCase("DELETE", "/v1/alerts/a.b", signedIn: true, .rejected(404, "not found")),
        RouteCase(
            "POST", "/v1/backtest", body: #"{"tickers":["aapl","msft","aapl"],"period":"1y"}"#, signedIn: true,
            .command(
                .briefs, "briefs.backtest.v1", key: user,
                fields: ["tickers": .array([s("AAPL"), s("MSFT")]), "period": s("1y")])),
        RouteCase(
            "POST", "/v1/backtest", body: #"{"listId":"wl_1"}"#, signedIn: true,
            .command(.briefs, "briefs.backtest.v1", key: user, fields: ["listId": s("wl_1"), "period": s("3mo")])),
        RouteCase(
            "POST", "/v1/backtest", body: #"{"listId":"wl_1","period":"100y"}"#, signedIn: true,
            .rejected(400, "period must be one of 1mo, 3mo, 6mo, 1y")),
        RouteCase(
            "POST", "/v1/backtest", body: #"{"tickers":[]}"#, signedIn: true,
            .rejected(400, "tickers required (non-empty array of symbols)")),
        RouteCase(
            "POST", "/v1/backtest", body: #"{"tickers":"aapl"}"#, signedIn: true,
            .rejected(400, "tickers required (non-empty array of symbols)")),
        RouteCase(
            "POST", "/v1/backtest", signedIn: true, .rejected(400, "tickers required (non-empty array of symbols)")),
        RouteCase("POST", "/v1/backtest", body: #"{"listId":"a.b"}"#, signedIn: true, .rejected(404, "list not found")),
        RouteCase(
            "POST", "/v1/memo", body: #"{"ticker":"aapl"}"#,
            .command(.briefs, "briefs.memo.v1", key: "AAPL", fields: ["ticker": s("AAPL")])),
        RouteCase(
            "POST", "/v1/memo", body: #"{"ticker":"aapl"}"#, signedIn: true,
            .command(.briefs, "briefs.memo.v1", key: user, fields: ["ticker": s("AAPL"), "userId": s(user)])),
        RouteCase("POST", "/v1/memo", body: "{}", .rejected(400, "ticker required")),
        RouteCase(
            "GET", "/v1/memo/sec/aapl",
            .command(.briefs, "briefs.memo.sec.v1", key: "AAPL", fields: ["ticker": s("AAPL")])),
        RouteCase("GET", "/v1/memo/sec/1x", .rejected(400, "ticker required")),
    ]

    static let localBrief: [RouteCase] = [
        RouteCase(
            "POST", "/v1/local-brief", body: #"{"lat":40.7,"lng":-74,"city":" NYC "}"#, signedIn: true,
            .command(
                .briefs, "local_brief.generate.v1", key: user,
                fields: ["lat": n(40.7), "lng": n(-74), "place": .object(["city": s("NYC")])])),
        RouteCase(
            "POST", "/v1/local-brief", body: #"{"lat":91,"lng":0}"#, signedIn: true, .rejected(400, "lat/lng required")),
        RouteCase("POST", "/v1/local-brief", body: #"{"lat":1,"lng":2}"#, .rejected(401, "missing bearer token")),
        RouteCase(
            "POST", "/v1/local-brief/save", body: #"{"label":"Home","lat":1,"lng":2,"brief":"\#(brief)"}"#,
            signedIn: true,
            .command(
                .briefs, "local_brief.save.v1", key: user,
                fields: ["label": s("Home"), "lat": n(1), "lng": n(2), "brief": s(brief)])),
        RouteCase(
            "POST", "/v1/local-brief/save", body: #"{"lat":1,"lng":2,"brief":"\#(brief)"}"#, signedIn: true,
            .rejected(400, "label required")),
        RouteCase(
            "POST", "/v1/local-brief/save", body: #"{"label":"Home","lat":1,"lng":2,"brief":"short"}"#, signedIn: true,
            .rejected(400, "brief text required (min 20 chars)")),
        RouteCase(
            "POST", "/v1/local-brief/save", body: #"{"label":"Home","brief":"\#(brief)"}"#, signedIn: true,
            .rejected(400, "lat/lng required")),
        RouteCase(
            "GET", "/v1/local-brief/saved", signedIn: true,
            .command(.briefs, "local_brief.saved.v1", key: user, fields: ["userId": s(user)])),
        RouteCase(
            "DELETE", "/v1/local-brief/saved/lb_1", signedIn: true,
            .command(.briefs, "local_brief.delete.v1", key: user, fields: ["id": s("lb_1")])),
        RouteCase("DELETE", "/v1/local-brief/saved/a.b", signedIn: true, .rejected(404, "saved brief not found")),
    ]

    @Test(arguments: watchlist) func watchlistRoute(_ routeCase: RouteCase) async throws { try await routeCase.check() }

    @Test(arguments: alertsBacktestMemo) func alertBacktestAndMemoRoute(_ routeCase: RouteCase) async throws {
        try await routeCase.check()
    }

    @Test(arguments: localBrief) func localBriefRoute(_ routeCase: RouteCase) async throws {
        try await routeCase.check()
    }
}
