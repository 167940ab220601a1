/// A group consumer's lifecycle as a pure state machine: start → admit messages (run up to the cap, buffer the
/// rest, pause the assignment when the buffer is full) → revoke (drop the revoked partitions' buffered messages,
/// wait for their handlers, commit) → drain (stop intake, wait for handlers) → close (final commit). Each event
/// returns the action the poll thread must take; `KafkaGroupConsumer` holds it under a lock and does the C calls.
/// Unit-tested without a broker, like `OffsetTracker`, which it owns.
package struct ConsumerLifecycle: Sendable {
    package enum Phase: Sendable, Equatable {
        /// Made, not started: a stop now means `run()` returns at once.
        case created
        case running
        /// Stop requested: no new handlers; the assignment stays paused while running handlers finish.
        case draining
        /// Final commit taken; revocations from here on skip waiting (the drain already waited).
        case closed
    }

    /// A message admitted to a handler slot, with the assignment epoch it belongs to.
    package struct Work: Sendable {
        package let message: KafkaMessage
        package let epoch: UInt64
        var partition: TopicPartition { TopicPartition(topic: message.topic, partition: message.partition) }
    }

    package enum StartAction: Sendable, Equatable {
        /// Subscribe and poll.
        case subscribe
        /// A stop came first: report stopped without subscribing.
        case stopped
        /// `start()` was already called.
        case alreadyStarted
    }

    package enum AdmitAction: Sendable {
        /// Start a handler for it now.
        case run(Work)
        /// Every slot is busy: it waits in the buffer.
        case buffered
        /// Not handled (stopping, or its partition is not assigned); it stays uncommitted.
        case dropped
    }

    /// What to do after a handler finished.
    package struct FinishAction: Sendable {
        /// The next buffered message to start, if any.
        package var next: Work?
        /// Wake the poll thread (to resume the assignment or to notice the drain progressing).
        package var wake: Bool
    }

    package enum CapAction: Sendable, Equatable { case none, pause, resume }

    /// Finished work is committed at most this often (asynchronously); revocation and close commit at once.
    package static let commitInterval: Duration = .milliseconds(100)

    package private(set) var phase = Phase.created
    package private(set) var maxInFlight: Int
    package private(set) var tracker = OffsetTracker()
    package private(set) var running = 0
    package private(set) var pausedForCap = false
    private var waiting: [Work] = []
    private var nextCommit: ContinuousClock.Instant?

    package init(maxInFlight: Int = 1) {
        self.maxInFlight = max(1, maxInFlight)
    }

    /// Handlers running plus messages buffered for a slot.
    package var load: Int { running + waiting.count }

    package var isStopping: Bool { phase == .draining || phase == .closed }

    /// Nothing for the poll loop's turns to do: no handler running or waiting, no finished offset left to commit.
    package var isSettled: Bool { load == 0 && !tracker.hasCommits }

    /// Received messages at which the assignment is paused: the cap plus a local buffer of as many again. Handlers
    /// never exceed the cap; the buffer hides librdkafka's resume latency (a resumed partition is fetched again only
    /// at the broker thread's next periodic scan), which pausing exactly at the cap would pay on every cycle.
    package var pauseLoad: Int { 2 * maxInFlight }
    /// Received messages at or below which a paused assignment is resumed (the buffer half drained).
    package var resumeLoad: Int { maxInFlight + maxInFlight / 2 }

    package mutating func configure(maxInFlight: Int) {
        self.maxInFlight = max(1, maxInFlight)
    }

    package mutating func start() -> StartAction {
        switch phase {
        case .created:
            phase = .running
            return .subscribe
        case .running: return .alreadyStarted
        case .draining, .closed: return .stopped
        }
    }

    /// Asks to stop; returns true when the consumer never started (so `run()` may return at once).
    package mutating func requestStop() -> Bool {
        switch phase {
        case .created:
            phase = .closed
            return true
        case .running:
            phase = .draining
            return false
        case .draining, .closed:
            return false
        }
    }

    /// Partitions assigned; returns whether they must start paused (at the cap, or stopping).
    package mutating func assigned(_ tps: [TopicPartition]) -> Bool {
        for tp in tps { tracker.assign(tp) }
        return pausedForCap || isStopping
    }

    package mutating func admit(_ message: KafkaMessage) -> AdmitAction {
        guard phase == .running else { return .dropped }
        let tp = TopicPartition(topic: message.topic, partition: message.partition)
        guard let epoch = tracker.begin(tp, offset: message.offset) else { return .dropped }
        let work = Work(message: message, epoch: epoch)
        guard running < maxInFlight else {
            waiting.append(work)
            return .buffered
        }
        running += 1
        return .run(work)
    }

    package mutating func finished(_ work: Work) -> FinishAction {
        running -= 1
        tracker.finish(work.partition, epoch: work.epoch, offset: work.message.offset)
        var action = FinishAction(next: nil, wake: isStopping)
        if !isStopping, !waiting.isEmpty {
            running += 1
            action.next = waiting.removeFirst()
        }
        if pausedForCap, load <= resumeLoad { action.wake = true }
        return action
    }

    /// The poll loop's turn: finished offsets to commit (at most every `commitInterval`) and whether to pause or
    /// resume the assignment around the cap.
    package mutating func tick(now: ContinuousClock.Instant) -> (commits: [(TopicPartition, Int64)], cap: CapAction) {
        var cap = CapAction.none
        if isStopping {
            // Draining: the assignment stays paused.
        } else if !pausedForCap, load >= pauseLoad {
            pausedForCap = true
            cap = .pause
        } else if pausedForCap, load <= resumeLoad {
            pausedForCap = false
            cap = .resume
        }
        if let nextCommit, now < nextCommit { return ([], cap) }
        let commits = tracker.takeCommits()
        if !commits.isEmpty { nextCommit = now + Self.commitInterval }
        return (commits, cap)
    }

    /// Revocation begins: the revoked partitions' buffered messages are dropped (uncommitted: the next owner gets
    /// them). Returns whether to wait for their running handlers (not when lost, nor when closing).
    package mutating func revoking(_ tps: Set<TopicPartition>, lost: Bool) -> Bool {
        waiting.removeAll { work in
            guard tps.contains(work.partition) else { return false }
            tracker.abandon(work.partition, epoch: work.epoch, offset: work.message.offset)
            return true
        }
        return !(phase == .closed || lost)
    }

    /// What to commit synchronously before letting revoked partitions go (nothing when lost).
    package mutating func revokeCommits(_ tps: Set<TopicPartition>, lost: Bool) -> [(TopicPartition, Int64)] {
        lost ? [] : tracker.takeCommits(for: tps)
    }

    /// The revoked partitions are gone: finishes from their handlers are ignored from now on.
    package mutating func revoked(_ tps: [TopicPartition]) {
        for tp in tps { tracker.revoke(tp) }
    }

    /// Draining starts: every buffered message is dropped (uncommitted); running handlers finish.
    package mutating func drain() {
        for work in waiting { tracker.abandon(work.partition, epoch: work.epoch, offset: work.message.offset) }
        waiting.removeAll()
    }

    /// Handlers not yet finished (running, in `partitions` when given).
    package func outstanding(in partitions: Set<TopicPartition>? = nil) -> Int {
        tracker.outstanding(in: partitions)
    }

    /// Closing: the final commits and how many handlers are still running (abandoned past the drain timeout).
    package mutating func close() -> (commits: [(TopicPartition, Int64)], unfinished: Int) {
        phase = .closed
        return (tracker.takeCommits(), tracker.outstanding())
    }

    /// A commit failed: its offsets become committable again.
    package mutating func commitFailed(_ tp: TopicPartition, offset: Int64) {
        tracker.commitFailed(tp, offset: offset)
    }
}
