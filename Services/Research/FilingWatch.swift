import Foundation
import Redis
import ResearchCore
import Runtime
import Synchronization

/// Refreshes stored value chains when a new 10-K lands: every `GRAPH_10K_CHECK_INTERVAL_MS` (default 6 h; 0 = off)
/// one replica (a Redis claim per interval) reads EDGAR's newest 10-K of each ticker with a stored graph, paced
/// under EDGAR's 10 requests a second, and stores it (`research.graph_filings`). A graph older than its ticker's
/// stored 10-K is no longer fresh, so the next read treats it as stale (served free, re-extracted for a caller who may
/// pay). Reads never call EDGAR, so a cache hit stays free of upstream calls.
final class FilingWatch: Service {
    let name = "graph-10k-watch"
    private let store: GraphStore
    private let edgar: EdgarTenK
    private let redis: RedisClient
    private let interval: Duration
    private let pace: Duration
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)

    static let claimKey = "mapvest:graph:10k-sweep"

    init(store: GraphStore, edgar: EdgarTenK, redis: RedisClient, env: Environment, logger: Logger) {
        self.store = store
        self.edgar = edgar
        self.redis = redis
        self.logger = logger
        interval = env.milliseconds("GRAPH_10K_CHECK_INTERVAL_MS", default: .seconds(6 * 3600))
        pace = env.milliseconds("GRAPH_10K_PACE_MS", default: .milliseconds(150))
    }

    func run() async throws {
        guard interval > .zero else { return }
        var next = ContinuousClock.now + min(interval, .seconds(60))
        while !stopping.load(ordering: .acquiring) {
            try? await Task.sleep(for: min(.seconds(1), next - .now))
            guard ContinuousClock.now >= next, !stopping.load(ordering: .acquiring) else { continue }
            next = .now + interval
            if await claimed() { await sweep() }
        }
    }

    func shutdown() async { stopping.store(true, ordering: .releasing) }

    /// This replica's turn: the first to claim the current slot of the wall clock (one interval long) sweeps;
    /// every replica sweeps when Redis is unreachable (EDGAR is free).
    private func claimed() async -> Bool {
        let ms = max(
            1, Int(interval.components.seconds) * 1000 + Int(interval.components.attoseconds / 1_000_000_000_000_000))
        let slot = Int(Date().timeIntervalSince1970 * 1000) / ms
        do {
            return try await redis.set(
                "\(Self.claimKey):\(ms):\(slot)", Array("1".utf8), ttl: interval, onlyIfAbsent: true)
        } catch {
            logger.warning("10-K sweep claim failed; sweeping anyway", [LogKeys.error: "\(error)"])
            return true
        }
    }

    /// One pass over the stored graphs' tickers.
    func sweep() async {
        let tickers: [String]
        do {
            tickers = try await store.tickers()
        } catch {
            logger.warning("10-K sweep: stored tickers unreadable", [LogKeys.error: "\(error)"])
            return
        }
        guard !tickers.isEmpty else { return }
        guard let ciks = await edgar.ciks() else {
            logger.warning("10-K sweep: EDGAR's ticker map is unavailable")
            return
        }
        var updated = 0
        for ticker in tickers where !stopping.load(ordering: .acquiring) {
            guard let cik = ciks[ticker] else { continue }
            try? await Task.sleep(for: pace)
            guard let filing = await edgar.latest(cik: cik) else { continue }
            do {
                if try await store.recordTenK(ticker, filing) { updated += 1 }
            } catch {
                logger.warning("10-K sweep: filing not stored", [LogKeys.error: "\(error)"])
            }
        }
        logger.info("10-K sweep done", ["tickers": .int(tickers.count), "new10K": .int(updated)])
    }
}
