import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Postgres
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `find_evolution` end to end (docs/COMPATIBILITY.md#push-events): a find with a found price recorded through
    /// Identify reaches Briefs' read model by its `find.recorded` event; the quarter-hourly scan, published as an
    /// outside producer would, quotes it from a fake Massive and pushes the highest newly crossed tier once, never
    /// again for it.
    @Suite struct FindEvolutionTests {
        @Test func oneTierOncePerCrossingMonotonic() async throws {
            let price = Mutex(126.0)
            let massive = try FakeUpstream { request in
                guard request.path.hasPrefix("/v2/snapshot/") else { return .error(404, "not faked") }
                let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
                let now = price.withLock { $0 }
                let body = """
                    {"status":"OK","ticker":{"ticker":"\(symbol)","name":"\(symbol) Inc.","day":{"c":\(now)},\
                    "prevDay":{"c":100},"lastTrade":{"p":\(now),"t":\(Int64(Date().timeIntervalSince1970 * 1000))}}}
                    """
                return .json(200, raw: Array(body.utf8))
            }
            let nominatim = try FakeUpstream { _ in
                .json(
                    200,
                    raw: Array(
                        #"{"address":{"suburb":"Mission Dolores","city":"San Francisco","state":"California"}}"#.utf8))
            }
            let env = [
                "MARKET_DATA_PRIMARY": "massive", "MASSIVE_API_KEY": "test-massive",
                "MASSIVE_BASE_URL": massive.baseURL,
                "OPENROUTER_API_KEY": "", "EXA_API_KEY": "", "JEV_API_KEY": "", "NOMINATIM_BASE_URL": nominatim.baseURL,
            ]
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let identify = try await ServiceProcess.start("Identify", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-evo-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                identify.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            let pushes = try BriefsFakes.PushCollector { $0 == userId }
            let (db, producer) = try await Devices.briefsStoreAndProducer()

            // A Chipotle found at 100 and a find without a price (never evolves).
            let recorded = try await SystemClient.send(
                gateway, "POST", "/v1/finds",
                json: """
                    {"finds":[{"brand":"Chipotle","ticker":"CMG","isPublic":true,"confidence":"high","lat":37.76,"lng":-122.42,"foundPrice":100},
                    {"brand":"Target","ticker":"TGT","isPublic":true,"confidence":"high"}]}
                    """,
                headers: auth)
            #expect(recorded.status == 200)
            try await UncaughtNearbyTests.waitUntil("both finds in Briefs' read model") {
                try await db.query("SELECT count(*) AS n FROM briefs.user_finds WHERE user_id = \(userId)").first?.int(
                    "n") == 2
            }
            let findId = try #require(
                try await db.query("SELECT find_id FROM briefs.user_finds WHERE user_id = \(userId) AND ticker = 'CMG'")
                    .first?.string("find_id"))

            func tick() async throws {
                _ = try await producer.send(
                    topic: ServiceName.briefs.commandTopic, key: Array("all".utf8), value: Array("{}".utf8),
                    headers: [KafkaHeader(MessageHeaders.command, ScanFindEvolutionCommand.name)])
            }
            func tier() async throws -> Int? {
                try await db.query("SELECT tier FROM briefs.find_tiers WHERE find_id = \(findId)").first?.int("tier")
            }

            // +26 %: one push at tier 25; the next tick pushes nothing.
            try await tick()
            try await UncaughtNearbyTests.waitUntil("tier 25 recorded") { try await tier() == 25 }
            try await Task.sleep(for: .seconds(1))
            #expect(pushes.all.count == 1)
            let first = try #require(pushes.all.first)
            #expect(first.title == "Chipotle evolved" && first.eventKey == .findEvolution && first.tokenId == nil)
            #expect(first.body == "The Chipotle you spotted near Mission Dolores is up 26% since you found it")
            #expect(first.dedupe == [PushDedupe(slot: "evo:\(findId)", key: "25")])
            #expect(
                first.data["tier"] == .number(25) && first.data["findId"] == .string(findId)
                    && first.data["ticker"] == .string("CMG"))
            #expect(first.target == PushTarget(type: "company", fields: ["ticker": .string("CMG")]))
            try await tick()
            try await Task.sleep(for: .seconds(5))
            #expect(pushes.all.count == 1)

            // +51 % (after the 30 s quote cache): tier 50 once, then nothing again.
            price.withLock { $0 = 151 }
            try await Task.sleep(for: .seconds(31))
            try await tick()
            try await UncaughtNearbyTests.waitUntil("tier 50 recorded") { try await tier() == 50 }
            try await tick()
            try await Task.sleep(for: .seconds(5))
            #expect(pushes.all.map { $0.dedupe.first?.key } == ["25", "50"])
            #expect(
                pushes.all.last?.body == "The Chipotle you spotted near Mission Dolores is up 51% since you found it")
            await pushes.stop()
            await db.close()
        }
    }
}
