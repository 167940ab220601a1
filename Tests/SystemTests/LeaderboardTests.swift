import Contracts
import Foundation
import HTTPClient
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// The weekly leaderboard through the whole system (docs/COMPATIBILITY.md#leaderboard): early-find XP of the
    /// cycle, ranked, shown by handle only, with the caller's own row always present.
    @Suite struct LeaderboardTests {
        static func board(_ gateway: GatewayProcess, _ token: String, query: String = "") async throws
            -> LeaderboardResponse
        {
            let response = try await SystemClient.send(
                gateway, "GET", "/v1/leaderboard/weekly\(query)", headers: [("Authorization", "Bearer \(token)")])
            #expect(response.status == 200, "\(SystemClient.text(response))")
            #expect(!SystemClient.text(response).contains("usr_"))
            return try JSONDecoder().decode(LeaderboardResponse.self, from: Data(response.body))
        }

        static func handle(_ gateway: GatewayProcess, _ token: String) async throws -> String {
            let me = SystemClient.json(
                try await SystemClient.send(
                    gateway, "GET", "/v1/auth/me", headers: [("Authorization", "Bearer \(token)")]))
            return try #require((me["user"] as? [String: Any])?["handle"] as? String)
        }

        @Test func earlyFindersRankByHandle() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-leaderboard-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            #expect(try await SystemClient.send(gateway, "GET", "/v1/leaderboard/weekly").status == 401)
            let (first, _) = try await SystemClient.signIn(gateway)
            let (second, _) = try await SystemClient.signIn(gateway)
            let (idle, _) = try await SystemClient.signIn(gateway)
            try await SystemClient.waitForIdentify(gateway, auth: [("Authorization", "Bearer \(first)")])
            // Three tiles pioneered by the first finder, one by the second (the same tile as one of the first's).
            try await ProgressTests.replay(
                gateway, [("Authorization", "Bearer \(first)")],
                [
                    #"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","lat":48.8566,"lng":2.3522}"#,
                    #"{"brand":"Nike","ticker":"NKE","confidence":"high","lat":51.5074,"lng":-0.1278}"#,
                    #"{"brand":"Apple","ticker":"AAPL","confidence":"high","lat":52.52,"lng":13.405}"#,
                ])
            try await ProgressTests.replay(
                gateway, [("Authorization", "Bearer \(second)")],
                [#"{"brand":"Starbucks","ticker":"SBUX","confidence":"high","lat":48.8566,"lng":2.3522}"#])

            let board = try await Self.board(gateway, first)
            let cycle = try #require(Timestamp.parse(board.cycleEnd))
            #expect(Timestamp.parse(board.cycleStart) == cycle - 7 * 86_400)
            #expect(cycle > Date() - 1 && cycle <= Date() + 7 * 86_400)
            let firstHandle = try await Self.handle(gateway, first)
            let secondHandle = try await Self.handle(gateway, second)
            let mine = try #require(board.rows.first { $0.handle == firstHandle })
            let theirs = try #require(board.rows.first { $0.handle == secondHandle })
            #expect(mine.isYou && !theirs.isYou)
            #expect(mine.earlyFindScore == 45 && theirs.earlyFindScore == 15)
            #expect(mine.rank < theirs.rank)
            #expect(board.rows.map(\.rank) == board.rows.map(\.rank).sorted())
            #expect(board.rows.filter(\.isYou).count == 1)

            // A finder without a score is last, ranked after every scored one; `limit=1` keeps the top row only.
            let idleBoard = try await Self.board(gateway, idle)
            let idleRow = try #require(idleBoard.rows.last)
            #expect(idleRow.isYou && idleRow.earlyFindScore == 0)
            #expect(idleRow.handle == (try await Self.handle(gateway, idle)))
            if idleBoard.rows.count <= 50 { #expect(idleRow.rank == idleBoard.rows.count) }
            let top = try await Self.board(gateway, second, query: "?limit=1")
            #expect(top.rows.count == 2)
            #expect(top.rows[0].rank == 1 && top.rows[1].isYou && top.rows[1].earlyFindScore == 15)
            #expect(try await Self.board(gateway, second, query: "?limit=abc").rows.count >= 2)
        }
    }
}
