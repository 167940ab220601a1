import Contracts
import Foundation
import Geo
import HTTPClient
import IdentifyCore
import Postgres
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// The co-op XP pool through the whole system: five users catching in one tile at once uncover it once, share
    /// the pool exactly through the award ledger, and a sixth finder or a contributor's next catch there pays nothing
    /// more.
    @Suite struct CoopPoolTests {
        @Test func fiveConcurrentFindersShareThePoolOnce() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-coop-\(UInt16.random(in: 0...9999))")
            let db = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", sink: .memory()))
            defer {
                identify.kill()
                gateway.process.kill()
            }
            var users: [(token: String, userId: String)] = []
            for _ in 0...TerritoryRules.coopThreshold { users.append(try await SystemClient.signIn(gateway)) }
            func auth(_ user: (token: String, userId: String)) -> [(String, String)] {
                [("Authorization", "Bearer \(user.token)")]
            }
            try await SystemClient.waitForIdentify(gateway, auth: auth(users[0]))
            let lat = Double.random(in: 33...44)
            let lng = Double.random(in: -118 ... -80)
            let tile = try #require(Geohash.encode(lat: lat, lng: lng, precision: 6))
            let catchHere = #"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","lat":\#(lat),"lng":\#(lng)}"#

            // The threshold's worth of finders record at the same moment: exactly one transaction sees them all.
            let contributors = Array(users.prefix(TerritoryRules.coopThreshold))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for user in contributors {
                    group.addTask { try await ProgressTests.replay(gateway, auth(user), [catchHere]) }
                }
                try await group.waitForAll()
            }
            let share = TerritoryRules.coopPoolXP / TerritoryRules.coopThreshold
            func owed(_ user: (token: String, userId: String), tickers: [String], coop: Int) async throws -> Int {
                let quests = try await ProgressTests.questXP(gateway, auth(user), userId: user.userId)
                return ProgressTests.findXP(tickers) + ProgressRules.pioneerXP + coop + quests
            }
            for user in contributors {
                let expected = try await owed(user, tickers: ["SBUX"], coop: share)
                #expect(try await QuestTests.waitForXP(gateway, auth(user), expected) == expected)
            }

            // A sixth finder in the same cycle does not join; a contributor's second catch there pays no second share.
            let late = users[TerritoryRules.coopThreshold]
            try await ProgressTests.replay(gateway, auth(late), [catchHere])
            try await ProgressTests.replay(
                gateway, auth(users[0]),
                [#"{"brand":"Chipotle","ticker":"CMG","confidence":"high","lat":\#(lat),"lng":\#(lng)}"#])
            let lateOwed = try await owed(late, tickers: ["SBUX"], coop: 0)
            #expect(try await QuestTests.waitForXP(gateway, auth(late), lateOwed) == lateOwed)
            let againOwed = try await owed(users[0], tickers: ["SBUX", "CMG"], coop: share)
            #expect(try await QuestTests.waitForXP(gateway, auth(users[0]), againOwed) == againOwed)

            // The ledger holds the shares once each, summing to the pool; the tile uncovered once, naming the five.
            let cycle = WeeklyCycle.window(containing: Date())
            let paid = try await db.query(
                """
                SELECT user_id, xp FROM identify.progress_awards
                WHERE award_key LIKE \("tile_uncover:\(tile):%")
                """)
            #expect(paid.compactMap { $0.int("xp") }.reduce(0, +) == TerritoryRules.coopPoolXP)
            #expect(Set(paid.compactMap { $0.string("user_id") }) == Set(contributors.map(\.userId)))
            let uncovers = try await db.query(
                "SELECT contributors FROM identify.coop_uncovers WHERE tile = \(tile) AND cycle_start = \(cycle.start)")
            #expect(uncovers.count == 1)
            #expect(Set(uncovers.first?.stringArray("contributors") ?? []) == Set(contributors.map(\.userId)))
            await db.close()
        }
    }
}
