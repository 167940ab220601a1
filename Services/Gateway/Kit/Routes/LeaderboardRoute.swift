import Contracts
import Foundation
import HTTPServer

/// `GET /v1/leaderboard/weekly?limit=` (bearer): Identify ranks the cycle's early-find XP by user id; the gateway,
/// which owns the users, swaps each id for its handle. No user id or email ever reaches the client; a row whose
/// handle cannot be found is dropped, and the caller's own row is always last when it is not in the top.
struct LeaderboardRoute: Sendable {
    let caller: ServiceCaller
    let users: UserStore
    let budget: Duration
    static let defaultLimit = 50

    var route: Route {
        Route("GET", "/v1/leaderboard/weekly", auth: .required) { context in
            guard let user = context.caller.user else { return .error(.unknownUser) }
            // Read as the original (and the document) says: unreadable is the default, not a 400.
            let limit = Self.limit(context.request.head.query["limit"].flatMap { Double($0) })
            let answer = await caller.call(
                .identify, WeeklyScoresCommand.name, key: user.id,
                command: WeeklyScoresCommand(userId: user.id, limit: limit), budget: budget,
                requestId: context.requestId)
            guard answer.status == 200 else { return answer }
            guard let scores = try? JSONDecoder().decode(WeeklyScores.self, from: Data(answer.body)) else {
                return .error(.internalError)
            }
            let handles: [String: String]
            do {
                handles = try await users.handles(ids: scores.top.map(\.userId) + [user.id])
            } catch {
                return .error(.internalError)
            }
            return .json(200, Self.response(scores, handles: handles, callerId: user.id))
        }
    }

    /// Positive numbers truncated and capped at 50; absent, unreadable or below 1 → 50 (as the original reads it).
    static func limit(_ value: Double?) -> Int {
        guard let value, value >= 1 else { return defaultLimit }
        return Int(min(value, Double(defaultLimit)))
    }

    /// The rows the client sees: the top by handle, then the caller's own when it is not among them.
    static func response(_ scores: WeeklyScores, handles: [String: String], callerId: String) -> LeaderboardResponse {
        var rows = scores.top.compactMap { row in
            handles[row.userId].map {
                LeaderboardRow(handle: $0, earlyFindScore: row.score, rank: row.rank, isYou: row.userId == callerId)
            }
        }
        if !scores.top.contains(where: { $0.userId == callerId }), let handle = handles[callerId] {
            rows.append(
                LeaderboardRow(
                    handle: handle, earlyFindScore: scores.caller.score, rank: scores.caller.rank, isYou: true))
        }
        return LeaderboardResponse(cycleStart: scores.cycleStart, cycleEnd: scores.cycleEnd, rows: rows)
    }
}
