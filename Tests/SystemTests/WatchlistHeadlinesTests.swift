import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The Headlines card, the news reader and the movers scan through the whole system.
    @Suite struct WatchlistHeadlinesTests {
        static func headlines(_ gateway: GatewayProcess, _ auth: [(String, String)], _ query: String = "") async throws
            -> (HTTPClientResponse, WatchHeadlinesResponse)
        {
            let response = try await SystemClient.send(gateway, "GET", "/v1/watchlist/headlines" + query, headers: auth)
            return (response, try JSONDecoder().decode(WatchHeadlinesResponse.self, from: Data(response.body)))
        }

        @Test func headlinesFloorJevDownNewsReadAndMovers() async throws {
            let knobs = BriefsFakes.Knobs()
            let (massive, openRouter, jev, upstreamEnv) = try BriefsFakes.upstreams(knobs)
            let exa = try FakeUpstream { request in
                let ids = (SystemClient.jsonObject(request.body)["ids"] as? [String]) ?? []
                guard request.path == "/contents", let url = ids.first, !url.contains("broken") else {
                    return .error(500, "down")
                }
                return .json(
                    200,
                    raw: Array(#"{"results":[{"url":"\#(url)","title":"Deal done","text":"The full article."}]}"#.utf8))
            }
            var env = upstreamEnv
            env["EXA_API_KEY"] = "test-exa"
            env["EXA_BASE_URL"] = exa.baseURL
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-headlines-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            let suffix = String(UInt16.random(in: 100...999))
            for ticker in ["HA\(suffix)", "HB\(suffix)", "MVUP\(suffix)"] {
                _ = try await SystemClient.send(
                    gateway, "POST", "/v1/watchlist/add", json: "{\"ticker\":\"\(ticker)\"}", headers: auth)
            }

            // Three per ticker, newest first, scored in one batch; the floor keeps material items.
            let (plain, page) = try await Self.headlines(gateway, auth)
            #expect(plain.status == 200 && SystemClient.text(plain).contains("\"materiality\":null"))
            #expect(page.items.count == 9 && Set(page.tickers) == ["HA\(suffix)", "HB\(suffix)", "MVUP\(suffix)"])
            let times = page.items.compactMap { Timestamp.parse($0.publishedAt) }
            #expect(times.count == 9 && times == times.sorted(by: >))
            #expect(page.items.filter { $0.jevMateriality?.level == .material }.count == 3)
            #expect(page.items.allSatisfy { $0.jevMateriality != nil })
            let materiality = jev.requests.filter { $0.bodyText.contains("\"headlines\"") }
            #expect(materiality.count == 1)
            let (_, floored) = try await Self.headlines(gateway, auth, "?materiality=MATERIAL")
            #expect(floored.materiality == .material && floored.items.count == 3)
            #expect(floored.items.allSatisfy { $0.title.contains("material") })

            // Jev down, fresh headlines: no tag on any item, the floor hides nothing, still 200.
            knobs.jevDown.withLock { $0 = true }
            let (other, _) = try await BriefsFakes.signIn(gateway)
            _ = try await SystemClient.send(
                gateway, "POST", "/v1/watchlist/add", json: "{\"ticker\":\"HC\(suffix)\"}", headers: other)
            let (down, unscored) = try await Self.headlines(gateway, other, "?materiality=material")
            #expect(
                down.status == 200 && unscored.items.count == 3 && !SystemClient.text(down).contains("jev_materiality"))
            expectNotFound(
                try await SystemClient.send(gateway, "GET", "/v1/watchlist/headlines?listId=wl_nobody", headers: other))

            // The news reader: Exa's text with its cache header; a failure is `unavailable`, still 200.
            for query in ["", "?url=", "?url=ftp%3A%2F%2Fx", "?url=not-a-url"] {
                let bad = try await SystemClient.send(gateway, "GET", "/v1/news/read" + query)
                #expect(bad.status == 400 && SystemClient.errorMessage(bad) == "url required")
            }
            let read = try await SystemClient.send(gateway, "GET", "/v1/news/read?url=https%3A%2F%2Fnews.example%2Fa")
            #expect(
                read.status == 200 && read.headers["Cache-Control"] == "public, max-age=300, stale-while-revalidate=600"
            )
            let article = try JSONDecoder().decode(NewsReadResponse.self, from: Data(read.body))
            #expect(
                article.text == "The full article." && article.title == "Deal done" && article.source == "exa"
                    && article.error == nil)
            let broken = try JSONDecoder().decode(
                NewsReadResponse.self,
                from: Data(
                    try await SystemClient.send(gateway, "GET", "/v1/news/read?url=https%3A%2F%2Fbroken.example%2Fb")
                        .body))
            #expect(broken.error == "unavailable" && broken.text.isEmpty)

            // Movers: the +7 % ticker pushes once however often the scan runs; the +1 % ones never.
            let pushes = try BriefsFakes.PushCollector { $0 == userId }
            let producer = try KafkaProducer.make(
                configuration: KafkaConfiguration.fromEnvironment(Environment()),
                logger: Logger(label: "t", level: .error))
            let command = Array(try JSONEncoder().encode(ScanWatchlistMoversCommand(userId: userId)))
            for _ in 0..<3 {
                _ = try await producer.send(
                    topic: ServiceName.briefs.commandTopic, key: Array(userId.utf8), value: command,
                    headers: [KafkaHeader(MessageHeaders.command, ScanWatchlistMoversCommand.name)])
            }
            for _ in 0..<100 where pushes.all.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            try await Task.sleep(for: .seconds(2))
            let movers = pushes.all
            #expect(movers.count == 1)
            #expect(movers.first?.title == "$MVUP\(suffix) +7.0%" && movers.first?.eventKey == .watchlistMover)
            #expect(movers.first?.body == "$MVUP\(suffix) is up 7.0% today — it's on your watchlist.")
            #expect(movers.first?.dedupe.first?.key.hasSuffix("-MVUP\(suffix)") == true)

            await pushes.stop()
            producer.flush(timeout: .seconds(5))
            for fake in [massive, openRouter, jev, exa] { await fake.shutdown() }
        }

        func expectNotFound(_ response: HTTPClientResponse) {
            #expect(response.status == 404 && SystemClient.errorMessage(response) == "list not found")
        }
    }
}
