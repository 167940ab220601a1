import Contracts
import Foundation
import HTTPClient
import HTTPServer
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The ticker page through the whole system: HTTP → Gateway → Kafka → Rating → HTTP, with loopback fakes of
    /// Yahoo's chart endpoint (OHLCV) and the Underlying service.
    @Suite struct TickerRoutesTests {
        static func yahoo() throws -> FakeUpstream {
            try FakeUpstream { request in
                let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
                guard symbol != "NOPE" else { return .error(404, "no such symbol") }
                let n = request.query["range"] == "1d" ? 1 : 130
                let closes = (0..<n).map { 200 * exp(0.002 * Double($0) + 0.04 * sin(Double($0) / 6)) }
                func list(_ values: [Double]) -> String { values.map { String($0) }.joined(separator: ",") }
                let stamps = (0..<n).map { String(1_780_000_000 + $0 * 86_400) }.joined(separator: ",")
                let body = """
                    {"chart":{"result":[{"meta":{"symbol":"\(symbol)","currency":"USD","regularMarketPrice":260,\
                    "chartPreviousClose":255,"regularMarketTime":1785000000},"timestamp":[\(stamps)],\
                    "indicators":{"quote":[{"close":[\(list(closes))],"volume":[\(list((0..<n).map { 1e6 + Double($0 % 7) * 2e5 }))]}]}}]}}
                    """
                return .json(200, raw: Array(body.utf8))
            }
        }

        /// Width and height from a PNG's IHDR chunk, when the bytes are a PNG.
        static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
            guard bytes.count > 24, bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
                return nil
            }
            func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            return (be32(16), be32(20))
        }

        @Test func tickerPageRoutesValidateAndAnswer() async throws {
            let stored =
                #"{"ticker":"MCD","recommendation":{"action":"hold","strength":"weak","conviction":0.4,"one_line":"Hold"}}"#
            let yahoo = try Self.yahoo()
            let underlying = try FakeUpstream { request in
                if request.path == "/api/prism/MCD/summary" { return .json(200, raw: Array(stored.utf8)) }
                if request.path.hasPrefix("/api/charts/") { return .error(500, "analyzer down") }
                return .error(404, "not built")
            }
            let upstreams = [
                "MARKET_DATA_PRIMARY": "yahoo", "MASSIVE_API_KEY": "", "YAHOO_BASE_URL": yahoo.baseURL,
                "UNDERLYING_URL": underlying.baseURL, "JEV_API_KEY": "",
            ]
            let rating = try await ServiceProcess.start("Rating", extra: upstreams)
            let gateway = try await GatewayProcess.start(instance: "test-ticker-\(UInt16.random(in: 0...9999))")
            defer {
                rating.kill()
                gateway.process.kill()
            }

            // The 400s, answered by the gateway without a command.
            let invalid: [(String, String)] = [
                ("/v1/quote", "symbol required"), ("/v1/quote?symbol=%20%20", "symbol required"),
                ("/v1/quote-history?period=1mo", "symbol required"),
                ("/v1/quote?symbol=\(String(repeating: "A", count: 33))", "invalid symbol"),
                ("/v1/quote-history?symbol=MCD&period=10y", "period must be 5d, 1mo, 3mo, 6mo, 1y or 2y"),
                ("/v1/quote-history?symbol=MCD&interval=3h", "interval must be 15m, 1d, or 1w"),
                ("/v1/quote-history?symbol=MCD&period=1y&interval=15m", "interval 15m needs period 5d or 1mo"),
                ("/v1/chart/candles?ticker=MCD", ChartType.validationError),
                ("/v1/chart/price", "ticker required (e.g. MCD)"),
                ("/v1/chart/price?ticker=TOOLONGX", "ticker required (e.g. MCD)"),
                ("/v1/chart/price?ticker=MCD&month=13", "month must be 1-12"),
                ("/v1/chart/price?ticker=MCD&month=1.5", "month must be 1-12"),
                ("/v1/analysis/%24MCD", "ticker required (e.g. MCD)"), ("/v1/prism/%21%21/summary", "invalid ticker"),
            ]
            for (path, message) in invalid {
                let response = try await SystemClient.send(gateway, "GET", path)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == message, "\(path)")
            }
            let badSituate = try await SystemClient.send(gateway, "GET", "/v1/situate/%20/summary")
            #expect(SystemClient.json(badSituate)["code"] as? String == "situate_bad_request")

            // Quote: the shape, the header, and a symbol no provider has.
            let quote = try await SystemClient.send(gateway, "GET", "/v1/quote?symbol=mcd")
            #expect(
                quote.status == 200 && quote.headers["Cache-Control"] == "public, max-age=15, stale-while-revalidate=60"
            )
            let quoteBody = try JSONDecoder().decode(QuoteResponse.self, from: Data(quote.body))
            #expect(
                quoteBody.quote.symbol == "MCD" && quoteBody.quote.price == 260 && quoteBody.quote.provider == "yahoo")
            let missing = try await SystemClient.send(gateway, "GET", "/v1/quote?symbol=NOPE")
            #expect(missing.status == 502 && SystemClient.errorMessage(missing) == "quote unavailable")

            // History with volume, citing Yahoo.
            let history = try await SystemClient.send(gateway, "GET", "/v1/quote-history?symbol=MCD&period=6mo")
            #expect(history.status == 200 && history.headers["Cache-Control"] == "public, max-age=60")
            let historyBody = try JSONDecoder().decode(QuoteHistoryResponse.self, from: Data(history.body))
            #expect(historyBody.points.count == 130 && historyBody.points.allSatisfy { $0.volume != nil })
            #expect(
                historyBody.period == .sixMonths && historyBody.interval == .oneDay
                    && historyBody.sources.first?.provider == .yahoo)

            // Charts: Underlying answers 500, so we draw our own, within the chart budget.
            for type in ["regression", "auction", "ridge_growth"] {
                let chart = try await SystemClient.send(gateway, "GET", "/v1/chart/\(type)?ticker=mcd&period=6mo")
                #expect(chart.status == 200, "\(type): \(SystemClient.text(chart).prefix(200))")
                let body = try JSONDecoder().decode(ChartResponse.self, from: Data(chart.body))
                #expect(
                    body.ticker == "MCD" && body.provider == "yahoo"
                        && body.providerNote?.hasSuffix("(http 500)") == true)
                let png = try #require(Data(base64Encoded: body.image.data))
                #expect(Self.pngSize(Array(png)).map { [$0.0, $0.1] } == [1080, 720])
                #expect((body.levels != nil) == (type == "auction"))
            }
            let torque = try await SystemClient.send(gateway, "GET", "/v1/chart/torque?ticker=MCD")
            #expect(
                torque.status == 502
                    && SystemClient.errorMessage(torque) == "underlying chart torque unavailable: http 500")
            let noData = try await SystemClient.send(gateway, "GET", "/v1/chart/price?ticker=NOPE")
            #expect(noData.status == 502 && SystemClient.text(noData) == #"{"error":"price history unavailable"}"#)

            // Summaries and analysis from the Underlying service.
            let prism = try await SystemClient.send(gateway, "GET", "/v1/prism/mcd/summary")
            #expect(prism.status == 200 && SystemClient.text(prism) == stored)
            let situate = try await SystemClient.send(gateway, "GET", "/v1/situate/MCD/summary")
            #expect(
                situate.status == 404 && SystemClient.json(situate)["code"] as? String == "situate_packet_not_found")
            let analysis = try await SystemClient.send(gateway, "GET", "/v1/analysis/MCD")
            #expect(analysis.status == 404 && SystemClient.errorMessage(analysis) == "no analysis for this ticker yet")

            for fake in [yahoo, underlying] { await fake.shutdown() }
        }
    }
}
