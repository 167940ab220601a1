import Contracts
import Foundation
import Geo
import HTTPClient
import IdentifyCore
import Kafka
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// Quests through the whole system (docs/COMPATIBILITY.md#quests): decided from the finds journal by Identify's
    /// `find.recorded` consumer (two replicas), paid once through the progress ledger however often an event arrives,
    /// and read back by `GET /v1/quests` and `GET /v1/quests/weekly`.
    @Suite struct QuestTests {
        /// The journal as the quest rules read it, from `GET /v1/finds`.
        static func journal(_ gateway: GatewayProcess, _ auth: [(String, String)]) async throws -> [QuestFind] {
            let response = try await SystemClient.send(gateway, "GET", "/v1/finds?limit=200", headers: auth)
            return try JSONDecoder().decode(FindsResponse.self, from: Data(response.body)).finds.map { find in
                QuestFind(
                    createdAt: Timestamp.parse(find.createdAt) ?? Date(), ticker: find.ticker,
                    comparable: find.comparable, isPublic: find.isPublic,
                    tile: find.lat.flatMap { lat in find.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } })
            }
        }

        /// What the rules owe for these finds: every award any of their events makes due, each key once.
        static func questXP(userId: String, journal: [QuestFind], now: Date) -> Int {
            var owed: [String: Int] = [:]
            for find in journal {
                for award in QuestRules.dueAwards(userId: userId, caughtAt: find.createdAt, now: now, journal: journal)
                {
                    owed[award.key] = award.xp
                }
            }
            return owed.values.reduce(0, +)
        }

        /// Polls `GET /v1/progress` until its XP is `expected` (the consumer pays shortly after the finds commit).
        static func waitForXP(_ gateway: GatewayProcess, _ auth: [(String, String)], _ expected: Int) async throws
            -> Int
        {
            var xp = -1
            for _ in 0..<150 {
                xp = try await ProgressTests.progress(gateway, auth).xp
                if xp == expected { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            return xp
        }

        @Test func questsArePaidOnceFromTheFindStream() async throws {
            let replicas = [try await ServiceProcess.start("Identify"), try await ServiceProcess.start("Identify")]
            let gateway = try await GatewayProcess.start(instance: "test-quests-\(UInt16.random(in: 0...9999))")
            defer {
                for replica in replicas { replica.kill() }
                gateway.process.kill()
            }
            let (token, userId) = try await SystemClient.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)
            #expect(try await SystemClient.send(gateway, "GET", "/v1/quests").status == 401)
            #expect(try await SystemClient.send(gateway, "GET", "/v1/quests/weekly").status == 401)

            // The XP event open now, for anyone, with the null written out when none is.
            let events = try await SystemClient.send(gateway, "GET", "/v1/events/current")
            #expect(events.status == 200)
            #expect(events.headers.values("Cache-Control") == ["public, max-age=60, stale-while-revalidate=300"])
            #expect(SystemClient.json(events).keys.contains("active"))
            let active = try JSONDecoder().decode(EventsResponse.self, from: Data(events.body)).active
            #expect(active == XPEvents.active(at: Date()))

            let before = try await SystemClient.send(gateway, "GET", "/v1/quests", headers: auth)
            #expect(before.status == 200)
            let empty = try JSONDecoder().decode(QuestsResponse.self, from: Data(before.body))
            #expect(empty.xpGrantedToday == 0)
            #expect(empty.quests.map(\.kind) == QuestRules.dailySet(userId: userId, day: empty.day).map(\.kind))
            #expect(empty.quests.allSatisfy { !$0.completed && $0.progress == 0 })

            // Today: a listed brand, a private one (comparable only) and another listed one, in three tiles.
            try await ProgressTests.replay(
                gateway, auth,
                [
                    #"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","lat":40.758,"lng":-73.9855}"#,
                    #"{"brand":"Trader Joe's","comparable":"KR","isPublic":false,"confidence":"medium","lat":34.05,"lng":-118.25}"#,
                    #"{"brand":"Apple","ticker":"AAPL","confidence":"high","lat":37.7749,"lng":-122.4194}"#,
                ])
            let journal = try await Self.journal(gateway, auth)
            #expect(journal.count == 3)
            let now = Date()
            let owed = Self.questXP(userId: userId, journal: journal, now: now)
            #expect(owed > 0)
            // The 3 finds' XP and 3 pioneered tiles × 15, plus the quests.
            let expected = ProgressTests.findXP(["SBUX", "KR", "AAPL"]) + 3 * 15 + owed
            #expect(try await Self.waitForXP(gateway, auth, expected) == expected)

            let daily = try JSONDecoder().decode(
                QuestsResponse.self,
                from: Data(try await SystemClient.send(gateway, "GET", "/v1/quests", headers: auth).body))
            let rules = QuestRules.dailyQuests(userId: userId, day: daily.day, journal: journal)
            #expect(daily.quests == rules)
            #expect(daily.xpGrantedToday == rules.filter(\.completed).map(\.xp).reduce(0, +))
            #expect(
                daily.quests.contains { $0.kind == .catchAny }
                    == daily.quests.contains { $0.id == "\(daily.day):catch_any" })

            let weeklyResponse = try await SystemClient.send(gateway, "GET", "/v1/quests/weekly", headers: auth)
            #expect(weeklyResponse.status == 200)
            let weekly = try JSONDecoder().decode(WeeklyQuestsResponse.self, from: Data(weeklyResponse.body))
            let cycle = WeeklyCycle.window(containing: now)
            #expect(weekly.cycleEnd == Timestamp.iso8601(cycle.end))
            #expect(weekly.cycleStart == Timestamp.iso8601(cycle.start))
            #expect(weekly.quests == QuestRules.weeklyQuests(cycle: cycle, journal: journal))

            // The same events again (a redelivery, or the other replica after a rebalance) pay nothing more.
            let producer = try KafkaProducer.make(
                configuration: KafkaConfiguration(
                    brokers: try TestEnvironment.require("KAFKA_BROKERS"), isDevelopment: true),
                logger: Logger(label: "test", level: .error))
            let finds = try JSONDecoder().decode(
                FindsResponse.self,
                from: Data(try await SystemClient.send(gateway, "GET", "/v1/finds", headers: auth).body)
            ).finds
            for find in finds + finds {
                let event = CloudEvent(
                    id: UUID().uuidString, source: "/mapvest/identify", type: FindRecordedEvent.type,
                    time: Timestamp.iso8601(Date()), schemaVersion: FindRecordedEvent.schemaVersion, subject: userId,
                    data: FindRecordedEvent(
                        findId: find.id, userId: userId, brand: find.brand, ticker: find.ticker,
                        comparable: find.comparable, isPublic: find.isPublic, geohash6: nil, createdAt: find.createdAt))
                _ = try await producer.send(
                    topic: Topics.events, key: Array(userId.utf8), value: Array(try JSONEncoder().encode(event)),
                    headers: [])
            }
            await producer.shutdown()
            try await Task.sleep(for: .seconds(2))
            #expect(try await ProgressTests.progress(gateway, auth).xp == expected)
        }
    }
}
