import Contracts
import FoundationEssentials
import Messaging

/// Which tickers are on a signed-in caller's default watchlist, asked of Briefs (the owner) by command at call
/// time, so a promotion of another list counts at once. The answer must come within 500 ms; otherwise — or on
/// any failure — it is unknown and the verdict carries no `watchlisted`.
struct WatchlistLookup: Sendable {
    static let budget: Duration = .milliseconds(500)

    let client: RequestReplyClient

    /// One question at start with a generous budget, so Briefs' first reply to this replica's new reply topic (the
    /// producer's metadata fetch) is not paid by a caller's 500 ms.
    func warmUp() async {
        guard let body = try? JSONEncoder().encode(WatchContainsCommand(userId: "", tickers: ["WARMUP"])) else {
            return
        }
        let command = OutgoingCommand(
            service: .briefs, name: WatchlistCommandName.contains, key: nil, body: Array(body),
            requestId: "identify-warmup")
        _ = try? await client.request(command, budget: .seconds(10))
    }

    func watchlisted(userId: String, tickers: [String]) async -> Set<String>? {
        guard !tickers.isEmpty,
            let body = try? JSONEncoder().encode(WatchContainsCommand(userId: userId, tickers: tickers))
        else { return tickers.isEmpty ? [] : nil }
        let command = OutgoingCommand(
            service: .briefs, name: WatchlistCommandName.contains, key: userId, body: Array(body), requestId: "identify"
        )
        guard let reply = try? await client.request(command, budget: Self.budget), reply.status == 200,
            let decoded = try? JSONDecoder().decode(WatchContainsReply.self, from: Data(reply.body))
        else { return nil }
        return Set(decoded.watchlisted)
    }
}
