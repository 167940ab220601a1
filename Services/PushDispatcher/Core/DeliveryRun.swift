/// The batches of one request and its retry decisions, as a pure state machine (the dispatcher supplies the clock and
/// cancellation, performs each `Action` and reports each batch with `finished`):
///
/// 1. **Pages**: batches of the next tokens in byte order, each after the last token of the previous one, one after
///    another, until a page comes back short. A page that fails before selecting anything (the database) is tried
///    again with backoff until `patience` has passed since the first failure in a row; then the pages are abandoned.
/// 2. **Rounds**: the tokens that were busy under another lease or hit an error are tried again, sorted, in batches of
///    at most `batchSize`, with backoff between rounds, until `patience` after the pages ended (a lease held by a
///    replica that died has run out by then). What is still left is reported as unavailable.
///
/// Cancellation is looked at before each page and each round.
package struct DeliveryRun: Sendable {
    package enum Action: Sendable, Equatable {
        case batch(BatchSelection)
        case sleep(Duration)
        /// The pages were abandoned: the database stayed unavailable for `patience` (log it; then ask again).
        case abandonPages
        /// Done; `unavailable` tokens could not be delivered before the deadline.
        case finish(unavailable: Int)
    }

    private enum State: Sendable {
        case page(cursor: String?)
        case pageRunning(cursor: String?)
        case pageBackoff(cursor: String?, delay: Duration)
        case abandoning
        case pagesDone
        case roundReady(deadline: ContinuousClock.Instant, round: Int)
        case roundSleeping(deadline: ContinuousClock.Instant, round: Int)
        case roundRunning(deadline: ContinuousClock.Instant, round: Int, chunks: ArraySlice<[String]>)
        case finished
    }

    package let batchSize: Int
    package let patience: Duration
    private var state: State = .page(cursor: nil)
    /// Tokens to try again in the next round.
    package private(set) var retry = Set<String>()
    /// The retries collected by the running round.
    private var nextRetry = Set<String>()
    private var selectFailures = 0
    private var selectDeadline: ContinuousClock.Instant?

    package init(batchSize: Int, patience: Duration) {
        self.batchSize = max(1, batchSize)
        self.patience = patience
    }

    /// Backoff for the `attempt`-th retry (from 1): 50 ms doubling, at most 2 s.
    package static func retryDelay(_ attempt: Int) -> Duration {
        .milliseconds(min(2000, 25 << min(attempt, 7)))
    }

    /// The next thing to do. Call it first, after each batch (`finished`), after each sleep and after `abandonPages`.
    package mutating func next(now: ContinuousClock.Instant, cancelled: Bool) -> Action {
        switch state {
        case .page(let cursor):
            if cancelled { return endPages(now: now, cancelled: cancelled) }
            state = .pageRunning(cursor: cursor)
            return .batch(.after(cursor))
        case .pageBackoff(let cursor, let delay):
            state = .page(cursor: cursor)
            return .sleep(delay)
        case .abandoning:
            state = .pagesDone
            return .abandonPages
        case .pagesDone:
            return endPages(now: now, cancelled: cancelled)
        case .roundReady(let deadline, let round):
            guard !retry.isEmpty, !cancelled, now < deadline else {
                state = .finished
                return .finish(unavailable: retry.count)
            }
            state = .roundSleeping(deadline: deadline, round: round + 1)
            return .sleep(min(Self.retryDelay(round + 1), max(.zero, deadline - now)))
        case .roundSleeping(let deadline, let round):
            let tokens = TokenLocks.sorted(retry)
            let chunks = stride(from: 0, to: tokens.count, by: batchSize).map {
                Array(tokens[$0..<min(tokens.count, $0 + batchSize)])
            }
            nextRetry = []
            return nextChunk(deadline: deadline, round: round, chunks: chunks[...], now: now, cancelled: cancelled)
        case .roundRunning(let deadline, let round, let chunks):
            return nextChunk(deadline: deadline, round: round, chunks: chunks, now: now, cancelled: cancelled)
        case .pageRunning, .finished:
            preconditionFailure("DeliveryRun: next in state \(state)")
        }
    }

    /// Reports the batch the last `.batch` action ran (`now`: when it ended).
    package mutating func finished(_ outcome: BatchOutcome, now: ContinuousClock.Instant) {
        switch state {
        case .pageRunning(let cursor):
            if outcome.failed && outcome.selected.isEmpty {
                selectFailures += 1
                let deadline = selectDeadline ?? now + patience
                selectDeadline = deadline
                state =
                    now < deadline
                    ? .pageBackoff(cursor: cursor, delay: Self.retryDelay(selectFailures)) : .abandoning
                return
            }
            selectFailures = 0
            selectDeadline = nil
            retry.formUnion(outcome.retry)
            if let last = outcome.selected.last, outcome.selected.count >= batchSize {
                state = .page(cursor: last)
            } else {
                state = .pagesDone
            }
        case .roundRunning:
            nextRetry.formUnion(outcome.retry)
        default:
            preconditionFailure("DeliveryRun: finished in state \(state)")
        }
    }

    /// The rounds' deadline is `patience` after the pages ended.
    private mutating func endPages(now: ContinuousClock.Instant, cancelled: Bool) -> Action {
        state = .roundReady(deadline: now + patience, round: 0)
        return next(now: now, cancelled: cancelled)
    }

    /// The round's chunks run without looking at the clock or cancellation; then the next round decides.
    private mutating func nextChunk(
        deadline: ContinuousClock.Instant, round: Int, chunks: ArraySlice<[String]>, now: ContinuousClock.Instant,
        cancelled: Bool
    ) -> Action {
        guard let chunk = chunks.first else {
            retry = nextRetry
            state = .roundReady(deadline: deadline, round: round)
            return next(now: now, cancelled: cancelled)
        }
        state = .roundRunning(deadline: deadline, round: round, chunks: chunks.dropFirst())
        return .batch(.tokens(chunk))
    }
}
