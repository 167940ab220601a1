/// Exponential back-off with ±25 % jitter: `initial`, doubling up to `maximum`.
public struct Backoff: Sendable {
    public let initial: Duration
    public let maximum: Duration
    private var current: Duration

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
        self.current = initial
    }

    /// The next pause (jittered) and the one after it doubled.
    public mutating func next() -> Duration {
        let base = current
        current = min(current * 2, maximum)
        return base * Double.random(in: 0.75...1.25)
    }
}

/// A failure of a dependency that may cure itself (a database that is restarting, a broker that is unreachable).
/// Command handlers answer a still-failing one with 503 `{"error":"<dependency> unavailable"}`.
public protocol TransientFailure: Error {
    /// True when retrying later may succeed.
    var isRetriable: Bool { get }
    /// What is unavailable, for the error body (`database`, `cache`, `event bus`).
    var dependency: String { get }
}

/// The deadline of the work the current task does for someone (a command's budget), so that lower layers retrying a
/// transient failure know when to give up. Set by whoever owns the budget; nil means "no caller is waiting".
public enum TaskDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?
}

public enum Retry {
    /// Runs `work` until it succeeds, pausing with `backoff` between attempts, and gives up with the last error when
    /// `shouldRetry` says no or the next attempt would start after `deadline` (nil: never gives up on a retriable
    /// error). `onFailure` sees every failed attempt (1-based). Cancellation ends the loop with `CancellationError`.
    @discardableResult
    public static func run<T: Sendable>(
        until deadline: ContinuousClock.Instant?, backoff: Backoff = Backoff(),
        shouldRetry: (any Error) -> Bool = { _ in true }, onFailure: (any Error, Int) -> Void = { _, _ in },
        _ work: () async throws -> T
    ) async throws -> T {
        var backoff = backoff
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await work()
            } catch {
                if error is CancellationError || Task.isCancelled { throw error }
                onFailure(error, attempt)
                guard shouldRetry(error) else { throw error }
                let pause = backoff.next()
                if let deadline, ContinuousClock.now + pause >= deadline { throw error }
                try await Task.sleep(for: pause)
            }
        }
    }
}
