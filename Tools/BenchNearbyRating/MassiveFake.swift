import Foundation
import HTTPServer

/// Massive's wire format for the market-data surface (stock snapshots, aggregates, ratios, splits, dividends, option
/// snapshots and contracts), for any ticker: the edge harness runs the surface against it with Massive as the primary.
/// Pages past the first are reached with `cursor=p2`, as Massive's `next_url` gives them.
enum MassiveFake {
    static let day: Int64 = 86_400_000

    /// The answer to a Massive path, or nil when the path is not Massive's.
    static func answer(_ request: HTTPRequest) -> HTTPResponse? {
        let path = request.path
        let parts = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        let first = request.query["cursor"] == nil
        if path.hasPrefix("/v2/snapshot/locale/us/markets/stocks/tickers/"), let symbol = parts.last {
            return ok(
                #""ticker":{"ticker":"\#(symbol)","todaysChangePerc":1.2,"updated":1785000000000000000,"#
                    + #""day":{"o":128,"h":131,"l":127,"c":130,"v":1000},"prevDay":{"c":128.5},"#
                    + #""lastTrade":{"p":130.25,"t":1785000000000000000}}"#)
        }
        if path.hasPrefix("/v2/aggs/ticker/"), parts.count >= 9 {
            let bars = (0..<30).map { i in
                #"{"t":\#(1_780_000_000_000 + Int64(i) * day),"o":\#(100 + i),"h":\#(101 + i),"l":\#(99 + i),"#
                    + #""c":\#(100 + i),"v":\#(1000 + i),"vw":\#(100 + i),"n":7}"#
            }
            return ok(#""results":[\#(bars.joined(separator: ","))]"# + next(path, first))
        }
        if path == "/stocks/financials/v1/ratios" {
            let ticker = request.query["ticker"] ?? "X"
            let row =
                #"{"ticker":"\#(ticker)","date":"2026-06-30","price_to_earnings":21.5,"price_to_sales":3.1,"#
                + #""return_on_equity":0.22,"market_cap":2.5e11,"price":130.25}"#
            return ok(#""results":[\#(row)]"# + next(path, first))
        }
        if path == "/stocks/v1/splits" {
            let ticker = request.query["ticker"] ?? "AAPL"
            return ok(
                #""results":[{"id":"s1","ticker":"\#(ticker)","execution_date":"2026-03-02","split_from":1,"split_to":4}]"#
            )
        }
        if path == "/stocks/v1/dividends" {
            let ticker = request.query["ticker"] ?? "AAPL"
            return ok(
                #""results":[{"id":"d1","ticker":"\#(ticker)","ex_dividend_date":"2026-05-11","cash_amount":0.26}]"#)
        }
        if path.hasPrefix("/v3/snapshot/options/"), parts.count >= 4 {
            let underlying = parts[3]
            let contract = parts.count >= 5 ? parts[4] : "O:\(underlying)270115C00150000"
            return ok(#""results":[\#(snapshot(contract, underlying))]"# + (parts.count >= 5 ? "" : next(path, first)))
        }
        if path.hasPrefix("/v3/reference/options/contracts") {
            let ticker = parts.count >= 5 ? parts[4] : request.query["ticker"] ?? "O:AAPL270115C00150000"
            let underlying = request.query["underlying_ticker"] ?? "AAPL"
            let row = contract(ticker, underlying)
            // One contract answers `results` as an object, as Massive does.
            return ok(parts.count >= 5 ? #""results":\#(row)"# : #""results":[\#(row)]"# + next(path, first))
        }
        return nil
    }

    static func contract(_ ticker: String, _ underlying: String) -> String {
        #"{"ticker":"\#(ticker)","underlying_ticker":"\#(underlying)","contract_type":"call","#
            + #""expiration_date":"2027-01-15","strike_price":150,"exercise_style":"american","#
            + #""shares_per_contract":100,"primary_exchange":"BATO","cfi":"OCASPS"}"#
    }

    static func snapshot(_ ticker: String, _ underlying: String) -> String {
        #"{"break_even_price":151.2,"implied_volatility":0.31,"open_interest":1200,"#
            + #""details":\#(contract(ticker, underlying)),"greeks":{"delta":0.52,"gamma":0.04,"theta":-0.08,"vega":0.2},"#
            + #""last_quote":{"bid":1.1,"ask":1.3,"bid_size":10,"ask_size":12,"last_updated":1785000000123456789},"#
            + #""last_trade":{"price":1.2,"size":3,"sip_timestamp":1785000000123456789},"#
            + #""day":{"open":1.0,"high":1.4,"low":0.9,"close":1.2,"volume":55}}"#
    }

    /// `,"next_url":…` on a first page, so clients see a cursor to walk.
    static func next(_ path: String, _ first: Bool) -> String {
        first ? #","next_url":"https://api.massive.com\#(path)?cursor=p2""# : ""
    }

    static func ok(_ fields: String) -> HTTPResponse {
        .json(200, raw: Array(#"{"status":"OK","request_id":"fake",\#(fields)}"#.utf8))
    }
}
