import Contracts
import Foundation
import Messaging
import Redis
import ResearchCore
import Runtime

/// `research.graph.get.v1`: a fresh stored graph (≥ 4 edges: 30 days, fewer: 24 h, and no 10-K accepted since it was
/// made, `TenKRefresh`) answers 200 for free. Otherwise,
/// without `generate`, the stored set answers 200 marked `X-Graph: stale`, or nothing stored answers 404 marked
/// `X-Graph: miss`, so the gateway can decide who pays. With `generate`, one extraction per ticker runs in this
/// replica at a time (callers that arrive meanwhile share it); edges found replace the stored set and answer 200
/// with `X-Research-Turn: new` for the caller that started it (`replayed` for the others). An extraction that finds
/// nothing is not repeated for an hour and answers what is stored.
struct GraphCommands: Sendable {
    let store: GraphStore
    let extractor: GraphExtractor
    let redis: RedisClient
    let flights = GraphFlights()
    let logger: Logger

    static let quietAfterNothing: Duration = .seconds(3600)

    func get(_ command: GraphCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        let ticker = command.ticker
        let stored = try await store.load(ticker)
        if let age = stored.ageSeconds,
            TenKRefresh.isFresh(count: stored.edges.count, ageSeconds: age, tenKAgeSeconds: stored.tenKAgeSeconds)
        {
            return answer(ticker, stored.edges)
        }
        let quiet = (try? await redis.get(Self.quietKey(ticker))) != nil
        if quiet { return answer(ticker, stored.edges) }
        guard command.generate else {
            if stored.edges.isEmpty { return Reply.error(404, "no graph stored").marked("miss") }
            return answer(ticker, stored.edges).marked("stale")
        }
        let extractor = self.extractor
        let (outcome, started) = await flights.run(ticker) { await extractor.extract(ticker, deadline: deadline) }
        switch outcome {
        case .found(let edges):
            if started { try await store.replace(ticker, with: edges) }
            var reply = answer(ticker, edges)
            reply.headers.append(("X-Research-Turn", started ? "new" : "replayed"))
            return reply
        case .nothing:
            if started {
                do {
                    _ = try await redis.set(Self.quietKey(ticker), Array("1".utf8), ttl: Self.quietAfterNothing)
                } catch {
                    logger.warning("graph quiet mark not stored", [LogKeys.error: "\(error)"])
                }
            }
            return answer(ticker, stored.edges)
        case .unavailable(let reason):
            return stored.edges.isEmpty ? .error(503, reason) : answer(ticker, stored.edges)
        }
    }

    static func quietKey(_ ticker: String) -> String { "mapvest:graph:quiet:" + ticker }

    private func answer(_ ticker: String, _ edges: [CompanyEdge]) -> Reply {
        .json(200, CompanyGraphResponse(ticker: ticker, edges: edges, now: Timestamp.iso8601(Date())))
    }
}

extension Reply {
    /// This reply marked for the gateway (`X-Graph: stale|miss`).
    fileprivate func marked(_ state: String) -> Reply {
        var copy = self
        copy.headers.append(("X-Graph", state))
        return copy
    }
}

/// One extraction per ticker at a time in this replica.
typealias GraphFlights = BuildFlights<GraphExtractor.Outcome>
