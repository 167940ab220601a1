import Foundation
import HTTPClient
import HTTPServer
import Runtime
import UpstreamFakes

/// The fakes and the measuring loop.
enum Bench {
    static func sleep(_ latency: Duration) async { if latency > .zero { try? await Task.sleep(for: latency) } }

    static func json(_ text: String) -> HTTPResponse { .json(200, raw: Array(text.utf8)) }

    /// `around:<r>,<lat>,<lng>` from an Overpass form body.
    static func center(ofOverpass body: [UInt8]) -> (Double, Double)? {
        let text = String(decoding: body, as: UTF8.self).removingPercentEncoding ?? ""
        guard let range = text.range(of: "around:") else { return nil }
        let parts = text[range.upperBound...].prefix { $0 != ")" }.split(separator: ",")
        guard parts.count >= 3, let lat = Double(parts[1]), let lng = Double(parts[2]) else { return nil }
        return (lat, lng)
    }

    static func runFakes(latency: Duration, envFile: String) async throws {
        let chains = [
            ("Starbucks", "cafe"), ("McDonald's", "fast_food"), ("Chipotle", "fast_food"), ("CVS Pharmacy", "pharmacy"),
            ("Chase", "bank"), ("Shell", "fuel"), ("Target", "department_store"), ("Walgreens", "pharmacy"),
            ("Corner Deli", "fast_food"), ("Blue Door Bakery", "cafe"), ("Main St Books", "books"),
            ("Harbor Gym", "gym"),
        ]
        let overpass = try FakeUpstream { request in
            await sleep(latency)
            guard let (lat, lng) = center(ofOverpass: request.body) else { return .error(400, "bad query") }
            let elements = chains.enumerated().map { i, chain in
                let tag =
                    chain.1 == "books" || chain.1 == "department_store"
                    ? "\"shop\":\"\(chain.1)\"" : "\"amenity\":\"\(chain.1)\""
                return """
                    {"type":"node","id":\(i + 1),"lat":\(lat + Double(i) * 0.0002),"lon":\(lng + Double(i % 3) * 0.0002),\
                    "tags":{"name":"\(chain.0)",\(tag)}}
                    """
            }
            return json("{\"elements\":[\(elements.joined(separator: ","))]}")
        }
        let photon = try FakeUpstream { _ in
            await sleep(latency)
            return json("{\"features\":[]}")
        }
        let market = try FakeUpstream { request in
            await sleep(latency)
            let path = request.path
            if path.hasPrefix("/v7/finance/chart/") {
                let symbol = path.split(separator: "/").last.map(String.init) ?? "X"
                let count = request.query["range"] == "1d" ? 1 : 63
                let closes = (0..<count).map { String(100 + Double($0) * 0.5) }.joined(separator: ",")
                let stamps = (0..<count).map { String(1_780_000_000 + $0 * 86_400) }.joined(separator: ",")
                return json(
                    """
                    {"chart":{"result":[{"meta":{"symbol":"\(symbol)","currency":"USD","regularMarketPrice":130,\
                    "chartPreviousClose":128,"regularMarketTime":1785000000},"timestamp":[\(stamps)],\
                    "indicators":{"quote":[{"close":[\(closes)]}]}}]}}
                    """)
            }
            if path == "/v2/reference/news" {
                let ticker = request.query["ticker"] ?? "X"
                let items = (0..<10).map { i in
                    """
                    {"title":"\(ticker) headline \(i)\(i % 3 == 0 ? " earnings" : "")","article_url":"https://news.example/\(ticker)/\(i)",\
                    "publisher":{"name":"Wire"},"published_utc":"2026-08-2\(i % 10)T12:00:00Z"}
                    """
                }
                return json("{\"status\":\"OK\",\"results\":[\(items.joined(separator: ","))]}")
            }
            return MassiveFake.answer(request) ?? .error(404, "unknown")
        }
        let jev = try FakeUpstream { request in
            await sleep(latency)
            let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
            let questions = object?["questions"] as? [String: Any] ?? [:]
            var answers: [String] = []
            for id in questions.keys {
                if id == "rating" {
                    answers.append(
                        #""rating":{"type":"score","score":3,"probabilities":{"hold":0.3,"buy":0.55,"sell":0.15},"confidence":0.7}"#
                    )
                } else if id == "primary_driver" {
                    answers.append(
                        #""primary_driver":{"type":"choice","choice":"momentum","probabilities":{"momentum":0.7},"confidence":0.7}"#
                    )
                } else if id.hasPrefix("up_") {
                    answers.append("\"\(id)\":{\"type\":\"noul\",\"noul\":0.7}")
                } else {
                    answers.append(
                        "\"\(id)\":{\"type\":\"choice\",\"choice\":\"material\",\"probabilities\":{\"material\":0.8,\"minor\":0.2},\"confidence\":0.8}"
                    )
                }
            }
            return json("{\"answers\":{\(answers.joined(separator: ","))}}")
        }
        // The engine has MCD's Prism and Situate packets stored, so their chats answer.
        let engine = FakeUnderlyingEngine(built: ["prism:MCD", "situate:MCD"])
        let underlying = try FakeUpstream { request in
            await sleep(latency)
            if let answer = engine.handle(request) { return answer }
            if request.path == "/api/watchlists/cockpit" {
                // The engine's batch rank: one row per ticker sent, in the engine's own spellings.
                let sent =
                    (try? JSONDecoder().decode([String: [String]].self, from: Data(request.body)))?["tickers"] ?? []
                let rows = sent.enumerated().map { index, ticker in
                    #"{"symbol":"\#(ticker)","total":\#(90 - index),"regime":"trend","ridge":{"state":"rising"},"flow_compass":\#(index)}"#
                }
                return json(#"{"cockpit":[\#(rows.joined(separator: ","))],"meta":{"engine":"fake"}}"#)
            }
            if request.path.hasPrefix("/api/tabular/peer-forecast/") {
                return json("{\"available\":true,\"bucket\":\"top_quintile\",\"confidence\":0.6}")
            }
            if request.path.hasSuffix("/summary") && request.path.hasPrefix("/api/prism/") {
                let ticker = request.path.split(separator: "/").dropLast().last.map(String.init) ?? "X"
                return json(
                    #"{"ticker":"\#(ticker)","recommendation":{"action":"buy","strength":"normal","conviction":0.6,"one_line":"Buy"}}"#
                )
            }
            if request.path.hasPrefix("/api/charts/") {
                // A 1 × 1 PNG, as Underlying's charts carry theirs.
                return json(
                    #"{"images":[{"filename":"chart.png","mime":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}],"provider":"underlying","meta":{}}"#
                )
            }
            return .error(404, "not stored")
        }
        // SEC EDGAR: the ticker map and one company's recent filings.
        let sec = try FakeUpstream { request in
            await sleep(latency)
            if request.path == "/files/company_tickers.json" {
                return json(#"{"0":{"cik_str":63908,"ticker":"MCD","title":"McDonalds Corp"}}"#)
            }
            if request.path.hasPrefix("/submissions/CIK") {
                return json(
                    #"{"name":"McDonalds Corp","filings":{"recent":{"accessionNumber":["0000063908-26-000010"],"filingDate":["2026-08-01"],"form":["10-Q"],"primaryDocument":["mcd-20260630.htm"]}}}"#
                )
            }
            return .error(404, "not found")
        }
        let stripe = try FakeStripe()
        let env = [
            "STRIPE_API_URL=\(stripe.baseURL)", "STRIPE_SECRET_KEY=\(stripe.secretKey)",
            "STRIPE_PRICE_ID_MONTHLY=price_fake_monthly", "STRIPE_WEBHOOK_SECRET=whsec_fake_edge_harness",
            "OVERPASS_URLS=\(overpass.baseURL)/api/interpreter", "PHOTON_BASE_URL=\(photon.baseURL)",
            "GOOGLE_MAPS_API_KEY=",
            "EXA_API_KEY=", "OPENROUTER_API_KEY=", "MARKET_DATA_PRIMARY=yahoo", "YAHOO_BASE_URL=\(market.baseURL)",
            "MASSIVE_BASE_URL=\(market.baseURL)", "MASSIVE_API_KEY=bench", "JEV_API_KEY=bench",
            "JEV_BASE_URL=\(jev.baseURL)",
            "UNDERLYING_URL=\(underlying.baseURL)", "SEC_BASE_URL=\(sec.baseURL)", "SEC_DATA_BASE_URL=\(sec.baseURL)",
        ]
        try (env.map { "export \($0)" }.joined(separator: "\n") + "\n").write(
            toFile: envFile, atomically: true, encoding: .utf8)
        let fakes = [overpass, photon, market, jev, underlying, sec, stripe.upstream]
        while true { try await Task.sleep(for: .seconds(3600)) }
        _ = fakes
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// Times `paths` one after another; prints p50/p99 and the statuses seen.
    static func measure(_ label: String, base: String, paths: [String], http: HTTPClient) async {
        var samples: [Double] = []
        var statuses: [Int: Int] = [:]
        for path in paths {
            let started = ContinuousClock.now
            let status =
                (try? await http.execute(HTTPClientRequest(url: base + path, timeout: .seconds(15))).status)
                ?? 0
            samples.append((ContinuousClock.now - started).inMilliseconds)
            statuses[status, default: 0] += 1
        }
        samples.sort()
        let codes = statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
        print(
            String(
                format: "%-34@ n=%-4d p50 %7.1f ms   p99 %7.1f ms   (%@)", label as NSString, samples.count,
                percentile(samples, 0.5), percentile(samples, 0.99), codes as NSString))
    }

    static func runBenchmark(base: String, samples: Int) async throws {
        // Distinct geohash-6 tiles: about 0.02° apart, a fresh random corner per run.
        let originLat = Double.random(in: 30...40)
        let originLng = Double.random(in: -110 ... -80)
        let nearby = (0..<samples).map { i in
            "/v1/nearby?lat=\(originLat + Double(i / 40) * 0.02)&lng=\(originLng + Double(i % 40) * 0.02)&radius=500"
        }
        let tickers = (0..<samples).map { _ in
            "Q" + String((0..<4).map { _ in "ABCDEFGHIJKLMNOPRSTUVWXYZ".randomElement() ?? "A" })
        }
        let ratings = tickers.map { "/v1/rating/\($0)" }
        let http = try HTTPClient.make(logger: Logger(label: "bench-http", level: .error))
        await measure("nearby, cold tile cache", base: base, paths: nearby, http: http)
        await measure("nearby, warm tile cache", base: base, paths: nearby, http: http)
        await measure("rating, uncached (computed)", base: base, paths: ratings, http: http)
        await measure("rating, cached", base: base, paths: ratings, http: http)
    }
}
