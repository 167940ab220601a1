/// How long a hedgeable request waits for its first copy's reply before a second copy is sent: the 95th
/// percentile of the command's recent reply latencies, kept between a floor and a cap. Pure logic (no clock, no
/// I/O); `RequestReplyClient` keeps one per command under a lock.
///
/// The percentile makes a hedge rare while the service is healthy (about one request in twenty, and only those
/// already slower than nearly all others) and prompt when a partition's consumer stops answering. The floor keeps
/// a very fast command from hedging on scheduling noise; the cap bounds the wait when a window is full of slow
/// replies (e.g. during an outage), so failover stays well under a second.
package struct HedgeDelay: Sendable, Equatable {
    /// The estimator's settings.
    package struct Policy: Sendable, Equatable {
        package var floor: Duration
        package var cap: Duration
        /// The delay used until `minimumSamples` latencies have been observed.
        package var initial: Duration
        /// How many recent latencies the percentile is taken over.
        package var window: Int
        package var minimumSamples: Int

        package init(floor: Duration, cap: Duration, initial: Duration, window: Int, minimumSamples: Int) {
            self.floor = floor
            self.cap = max(cap, floor)
            self.initial = min(max(initial, floor), self.cap)
            self.window = max(1, window)
            self.minimumSamples = min(max(1, minimumSamples), self.window)
        }

        /// 50 ms to 400 ms, 250 ms until 20 of the last 200 replies are known.
        package static let standard = Policy(
            floor: .milliseconds(50), cap: .milliseconds(400), initial: .milliseconds(250), window: 200,
            minimumSamples: 20)
    }

    package let policy: Policy
    /// The last `policy.window` latencies, oldest overwritten first.
    private var samples: [Duration] = []
    /// The same latencies in ascending order, kept sorted one insertion and one removal per sample (a full sort of
    /// the window per reply cost the gateway ~85k instructions per request).
    private var ordered: [Duration] = []
    private var next = 0
    /// The current delay, recomputed when a sample arrives.
    package private(set) var delay: Duration

    package init(policy: Policy = .standard) {
        self.policy = policy
        self.delay = policy.initial
    }

    /// Records the latency of a reply (from sending the copy that answered to its reply).
    package mutating func observe(_ latency: Duration) {
        if samples.count < policy.window {
            samples.append(latency)
        } else {
            ordered.remove(at: Self.firstIndex(notBelow: samples[next], in: ordered))
            samples[next] = latency
        }
        ordered.insert(latency, at: Self.firstIndex(notBelow: latency, in: ordered))
        next = (next + 1) % policy.window
        guard ordered.count >= policy.minimumSamples else { return }
        // The nearest-rank 95th percentile.
        let rank = (ordered.count * 95 + 99) / 100
        delay = min(max(ordered[max(0, rank - 1)], policy.floor), policy.cap)
    }

    /// The first index of `sorted` whose value is not below `value` (binary search; `sorted.count` if none).
    private static func firstIndex(notBelow value: Duration, in sorted: [Duration]) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// How many requests may be hedged: each request earns `ratio` of a token (up to `burst`), each hedge spends one, so
/// hedges stay at most about `ratio` of requests. When a whole service is slow (overload rather than one stalled
/// partition), every request outlives its hedge delay; without this bound each would add copies to the overload.
package struct HedgeBudget: Sendable, Equatable {
    package let ratio: Double
    package let burst: Double
    private var tokens: Double

    package init(ratio: Double = 0.1, burst: Double = 10) {
        self.ratio = max(0, ratio)
        self.burst = max(1, burst)
        self.tokens = self.burst
    }

    /// A request was sent.
    package mutating func requested() {
        tokens = min(burst, tokens + ratio)
    }

    /// Whether a due hedge may be sent (spending a token).
    package mutating func spend() -> Bool {
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
