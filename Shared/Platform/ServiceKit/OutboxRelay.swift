import Runtime
import Synchronization

/// Relays what writers left in an `Outbox` (a failed or interrupted publish after COMMIT): every `interval` one pass
/// over entries older than `grace`, safe with several replicas (`FOR UPDATE SKIP LOCKED`). Sets `outbox_backlog`.
public final class OutboxRelay: Service {
    public let name = "outbox-relay"
    private let outbox: Outbox
    private let interval: Duration
    private let grace: Duration
    private let stopping = Atomic<Bool>(false)

    public init(outbox: Outbox, interval: Duration = .seconds(1), grace: Duration = .seconds(3)) {
        self.outbox = outbox
        self.interval = interval
        self.grace = grace
    }

    /// A relay with `OUTBOX_RELAY_INTERVAL_MS` (default 1 s) and `OUTBOX_RELAY_GRACE_MS` (default 3 s).
    public static func fromEnvironment(_ env: Environment, outbox: Outbox) -> OutboxRelay {
        OutboxRelay(
            outbox: outbox, interval: env.milliseconds("OUTBOX_RELAY_INTERVAL_MS", default: .seconds(1)),
            grace: env.milliseconds("OUTBOX_RELAY_GRACE_MS", default: .seconds(3)))
    }

    public func run() async throws {
        while !stopping.load(ordering: .acquiring) {
            await pass()
            try? await Task.sleep(for: interval)
        }
    }

    public func shutdown() async { stopping.store(true, ordering: .releasing) }

    /// One pass: drains the backlog (`Outbox.batch` at a time while full batches come back), then records its size.
    func pass() async {
        do {
            while try await outbox.relayBacklog(olderThan: grace) == Outbox.batch, !stopping.load(ordering: .acquiring)
            {}
            OutboxMetrics.backlog.set(Int64(try await outbox.backlog()))
        } catch {
            outbox.logger.warning("outbox relay pass failed", [LogKeys.error: .string("\(error)")])
        }
    }
}
