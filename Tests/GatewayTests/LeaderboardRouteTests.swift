import Contracts
import Testing

@testable import GatewayKit

/// The leaderboard's gateway half: the `limit` reading and the swap of user ids for handles.
struct LeaderboardRouteTests {
    @Test func limitReadsAsTheOriginalDoes() {
        #expect(LeaderboardRoute.limit(nil) == 50)
        #expect(LeaderboardRoute.limit(0) == 50)
        #expect(LeaderboardRoute.limit(-3) == 50)
        #expect(LeaderboardRoute.limit(0.5) == 50)
        #expect(LeaderboardRoute.limit(7.9) == 7)
        #expect(LeaderboardRoute.limit(1e9) == 50)
    }

    @Test func idsBecomeHandlesAndTheCallerIsAlwaysThere() {
        let scores = WeeklyScores(
            cycleStart: "s", cycleEnd: "e",
            top: [
                ScoredUser(userId: "u1", score: 45, rank: 1), ScoredUser(userId: "gone", score: 30, rank: 2),
                ScoredUser(userId: "u3", score: 15, rank: 3),
            ],
            caller: ScoredUser(userId: "me", score: 0, rank: 4))
        let handles = ["u1": "finder-aaaa0001", "u3": "finder-aaaa0003", "me": "finder-0000beef"]
        let response = LeaderboardRoute.response(scores, handles: handles, callerId: "me")
        #expect(
            response.rows == [
                LeaderboardRow(handle: "finder-aaaa0001", earlyFindScore: 45, rank: 1, isYou: false),
                LeaderboardRow(handle: "finder-aaaa0003", earlyFindScore: 15, rank: 3, isYou: false),
                LeaderboardRow(handle: "finder-0000beef", earlyFindScore: 0, rank: 4, isYou: true),
            ])
        // In the top, the caller is marked there and not appended again.
        let inTop = LeaderboardRoute.response(
            scores, handles: handles.merging(["u3": "finder-aaaa0003"]) { a, _ in a }, callerId: "u3")
        #expect(inTop.rows.filter(\.isYou).map(\.handle) == ["finder-aaaa0003"])
        #expect(inTop.rows.count == 2)
    }
}
