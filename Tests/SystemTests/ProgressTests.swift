import Contracts
import Finance
import Foundation
import HTTPClient
import HTTPServer
import IdentifyCore
import Kafka
import Runtime
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Progression through the whole system (docs/COMPATIBILITY.md#record-find, #dex): streak and XP per find, pioneer
    /// tiles, the sector badge, all exactly once under redelivery; and the universe summary's arithmetic against a
    /// quote fake.
    @Suite struct ProgressTests {
        /// Yahoo's chart endpoint with a fixed price per symbol; anything else is unknown (404).
        static let prices: [String: Double] = ["SBUX": 150, "CMG": 50]
        static func yahoo() throws -> FakeUpstream {
            try FakeUpstream { request in
                let symbol = request.path.split(separator: "/").last.map(String.init) ?? ""
                guard let price = prices[symbol] else { return .error(404, "no such symbol") }
                let body = """
                    {"chart":{"result":[{"meta":{"symbol":"\(symbol)","currency":"USD","regularMarketPrice":\(price),\
                    "chartPreviousClose":\(price),"regularMarketTime":1785000000},"timestamp":[1785000000],\
                    "indicators":{"quote":[{"close":[\(price)]}]}}]}}
                    """
                return .json(200, raw: Array(body.utf8))
            }
        }

        static func progress(_ gateway: GatewayProcess, _ auth: [(String, String)]) async throws -> UserProgress {
            let response = try await SystemClient.send(gateway, "GET", "/v1/progress", headers: auth)
            #expect(response.status == 200)
            return try JSONDecoder().decode(ProgressResponse.self, from: Data(response.body)).progress
        }

        static func day(_ daysAgo: Int) -> String {
            String(Timestamp.iso8601(Date() - Double(daysAgo) * 86_400).prefix(10))
        }

        static func replay(_ gateway: GatewayProcess, _ auth: [(String, String)], _ finds: [String]) async throws {
            let response = try await SystemClient.send(
                gateway, "POST", "/v1/finds", json: "{\"finds\":[\(finds.joined(separator: ","))]}", headers: auth)
            #expect(response.status == 200, "\(SystemClient.text(response))")
        }

        /// The find XP of catching these tickers now: 10 each, doubled in an open Sector Saturday's sector.
        static func findXP(_ tickers: [String]) -> Int {
            let event = XPEvents.active(at: Date())
            return tickers.map {
                ProgressRules.xpPerFind
                    * XPEvents.multiplier(sector: XPEvents.seedSector(ticker: $0, comparable: nil), event: event)
            }.reduce(0, +)
        }

        /// The quest XP the rules owe for the user's journal now.
        static func questXP(_ gateway: GatewayProcess, _ auth: [(String, String)], userId: String) async throws -> Int {
            QuestTests.questXP(userId: userId, journal: try await QuestTests.journal(gateway, auth), now: Date())
        }

        @Test func streakXPPioneerBadgeAndRedelivery() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-progress-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let (token, userId) = try await SystemClient.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)
            #expect(try await SystemClient.send(gateway, "GET", "/v1/progress").status == 401)
            let zero = try await Self.progress(gateway, auth)
            #expect(zero.xp == 0 && zero.level == 1 && zero.streakDays == 0 && zero.lastFindDay == nil)

            // Three finds on consecutive UTC days; two in one tile, one in another → 3 × 10 + 2 × 15 XP, and whatever
            // weekly quest they complete (paid by the find stream's consumer).
            try await Self.replay(
                gateway, auth,
                [
                    #"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","lat":40.758,"lng":-73.9855,"createdAt":"\#(Self.day(3))T12:00:00.000Z"}"#,
                    #"{"brand":"Chipotle","ticker":"CMG","confidence":"high","lat":40.7581,"lng":-73.9856,"createdAt":"\#(Self.day(2))T12:00:00.000Z"}"#,
                    #"{"brand":"Nike","ticker":"NKE","confidence":"high","lat":34.05,"lng":-118.25,"createdAt":"\#(Self.day(1))T12:00:00.000Z"}"#,
                ])
            var quests = try await Self.questXP(gateway, auth, userId: userId)
            var finds = Self.findXP(["SBUX", "CMG", "NKE"]) + 2 * 15
            #expect(try await QuestTests.waitForXP(gateway, auth, finds + quests) == finds + quests)
            var progress = try await Self.progress(gateway, auth)
            #expect(progress.streakDays == 3)
            #expect(progress.lastFindDay == Self.day(1))
            #expect(progress.level == ProgressRules.level(xp: progress.xp))

            // A re-catch today: no new find, its find XP (its tile is pioneered already), the streak goes on.
            try await Self.replay(
                gateway, auth,
                [
                    #"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","lat":40.758,"lng":-73.9855}"#
                ])
            let listed = try await SystemClient.send(gateway, "GET", "/v1/finds", headers: auth)
            #expect(try JSONDecoder().decode(FindsResponse.self, from: Data(listed.body)).count == 3)
            progress = try await Self.progress(gateway, auth)
            finds += Self.findXP(["SBUX"])
            #expect(progress.xp == finds + quests)
            #expect(progress.streakDays == 4)

            // The same handed-off effects command delivered twice awards once; a third, distinct one awards too.
            let producer = try KafkaProducer.make(
                configuration: KafkaConfiguration(
                    brokers: try TestEnvironment.require("KAFKA_BROKERS"), isDevelopment: true),
                logger: Logger(label: "test", level: .error))
            func effects(_ brand: String, _ ticker: String, key: String) throws -> [UInt8] {
                Array(
                    try JSONEncoder().encode(
                        IdentifyEffectsCommand(
                            userId: userId,
                            find: RecordFindInput(brand: brand, ticker: ticker, isPublic: true, confidence: .high),
                            push: nil, eventKey: userId,
                            completed: IdentifyCompletedEvent(
                                path: "hint", modelUsed: "test", latencyMs: 1, detections: 1, investables: 1,
                                publicInvestables: 1,
                                signedIn: true),
                            awardKey: key)))
            }
            let topic = ServiceName.identify.commandTopic
            let header = [KafkaHeader(MessageHeaders.command, IdentifyEffectsCommand.name)]
            let repeated = try effects("Adidas", "ADDYY", key: "redelivered-\(UUID().uuidString)")
            for body in [repeated, repeated, try effects("Apple", "AAPL", key: "distinct-\(UUID().uuidString)")] {
                _ = try await producer.send(topic: topic, key: Array(userId.utf8), value: body, headers: header)
            }
            var journal: [Find] = []
            for _ in 0..<100 {
                let r = try await SystemClient.send(gateway, "GET", "/v1/finds", headers: auth)
                journal = try JSONDecoder().decode(FindsResponse.self, from: Data(r.body)).finds
                if journal.count == 5 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(Set(journal.compactMap(\.ticker)) == ["SBUX", "CMG", "NKE", "ADDYY", "AAPL"])
            try await Task.sleep(for: .seconds(1))  // the duplicate, if it were applied, would have landed by now
            quests = try await Self.questXP(gateway, auth, userId: userId)
            finds += Self.findXP(["ADDYY", "AAPL"])
            #expect(try await QuestTests.waitForXP(gateway, auth, finds + quests) == finds + quests)
            #expect(try await Self.progress(gateway, auth).xp == finds + quests)
            await producer.shutdown()
        }

        @Test func aCompletedSectorEarnsItsBadgeOnce() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-badge-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let (token, userId) = try await SystemClient.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)
            // The seed's smallest sector.
            let (sector, tickers) = try #require(BrandSeed.shared.sectorTickers.min { $0.value.count < $1.value.count })
            #expect(tickers.count <= 49)
            let items = tickers.sorted().map { #"{"brand":"\#($0) Co","ticker":"\#($0)","confidence":"high"}"# }
            try await Self.replay(gateway, auth, Array(items.dropLast()))
            #expect(try await Self.progress(gateway, auth).badges.isEmpty)
            try await Self.replay(gateway, auth, [items[items.count - 1]])
            let quests = try await Self.questXP(gateway, auth, userId: userId)
            let expected = Self.findXP(Array(tickers)) + 50 + quests
            #expect(try await QuestTests.waitForXP(gateway, auth, expected) == expected)
            var progress = try await Self.progress(gateway, auth)
            #expect(progress.badges == ["sector:\(sector)"])
            // A re-catch in the completed sector: the find's XP, no second badge.
            try await Self.replay(gateway, auth, [items[0]])
            progress = try await Self.progress(gateway, auth)
            #expect(progress.badges == ["sector:\(sector)"])
            #expect(progress.xp == expected + Self.findXP([tickers.sorted()[0]]))
        }

        @Test func universeSummaryValuesFindsFromFoundPriceToTodaysQuote() async throws {
            let yahoo = try Self.yahoo()
            let identify = try await ServiceProcess.start(
                "Identify",
                extra: ["MARKET_DATA_PRIMARY": "yahoo", "YAHOO_BASE_URL": yahoo.baseURL, "MASSIVE_API_KEY": ""])
            let gateway = try await GatewayProcess.start(instance: "test-universe-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let auth = [("Authorization", "Bearer \(try await FindsTests.signIn(gateway))")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)
            try await Self.replay(
                gateway, auth,
                [
                    #"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","foundPrice":100}"#,
                    #"{"brand":"Chipotle","ticker":"CMG","confidence":"high","foundPrice":40}"#,
                    #"{"brand":"Nike","ticker":"NKE","confidence":"high"}"#,
                    #"{"brand":"Unknown Listing","ticker":"ZZZQ","confidence":"low","foundPrice":10}"#,
                ])
            let response = try await SystemClient.send(gateway, "GET", "/v1/universe/summary", headers: auth)
            #expect(response.status == 200)
            let summary = try JSONDecoder().decode(UniverseSummary.self, from: Data(response.body))
            #expect(summary.findCount == 4)
            #expect(summary.valuedFinds == 2)
            #expect(summary.hypotheticalBasis == 200)
            #expect(abs(summary.hypotheticalValue - 275) < 1e-9)  // 100 × 150/100 + 100 × 50/40
            #expect(abs(summary.changePct - 37.5) < 1e-9)
            #expect(summary.sources.map(\.provider) == [.yahoo])
            // One quote per distinct ticker, and none for a find without a found price.
            #expect(Set(yahoo.requests.map(\.path)).count == yahoo.requests.count)
            #expect(!yahoo.requests.contains { $0.path.hasSuffix("/NKE") })
            await yahoo.shutdown()
        }
    }
}
