import Contracts
import Crypto
import Foundation
import Messaging
import ResearchCore
import Runtime
import Synchronization

/// Runs Prism and Situate builds off the request path: claims a due build under a lease (renewed while the engine
/// works), stores the packet, publishes `mapvest.packet.built`, pushes `memo_finished` to each signed-in
/// owner, then marks it notified. A replica that dies mid-build lets its lease lapse; another replica then runs the
/// build again (once) or finishes its notifications. Push ids and dedupe keys are per build generation and owner, so
/// a repeated notification step never notifies twice.
final class PacketWorker: Service {
    let name = "packet-worker"
    private let store: PacketStore
    private let engine: UnderlyingPackets
    private let publisher: EventPublisher
    private let logger: Logger
    private let worker = "pw_" + Digest.randomHex(bytes: 8)
    private let interval: Duration
    private let lease: Duration
    private let stopping = Atomic<Bool>(false)

    init(store: PacketStore, engine: UnderlyingPackets, publisher: EventPublisher, env: Environment, logger: Logger) {
        self.store = store
        self.engine = engine
        self.publisher = publisher
        self.logger = logger
        interval = env.milliseconds("PACKET_WORKER_INTERVAL_MS", default: .milliseconds(500))
        lease = env.milliseconds("PACKET_LEASE_MS", default: .seconds(30))
    }

    func run() async throws {
        while !stopping.load(ordering: .acquiring) {
            var worked = false
            do {
                if let build = try await store.claim(worker: worker, lease: lease) {
                    worked = true
                    await run(build)
                } else if let build = try await store.claimNotification(worker: worker, lease: lease) {
                    worked = true
                    try await notify(build)
                }
            } catch {
                logger.warning("packet worker step failed", [LogKeys.error: .string("\(error)")])
            }
            if !worked { try? await Task.sleep(for: interval) }
        }
    }

    func shutdown() async { stopping.store(true, ordering: .releasing) }

    /// One attempt at `build`: the engine call under a renewed lease, then the packet stored and announced.
    private func run(_ build: PacketStore.Build) async {
        guard let request = build.request else {
            try? await store.fail(build.id, worker: worker, error: "unreadable build request", retry: false)
            return
        }
        let (store, worker, lease) = (self.store, self.worker, self.lease)
        let renewal = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: lease / 3)
                if Task.isCancelled { return }
                _ = try? await store.renew(build.id, worker: worker, lease: lease)
            }
        }
        let answer = await engine.build(request)
        renewal.cancel()
        do {
            switch PacketRules.verdict(status: answer.status, body: answer.body, kind: build.kind) {
            case .stored:
                guard
                    try await store.store(
                        build.id, worker: worker, packet: String(decoding: answer.body, as: UTF8.self))
                else { return }  // another replica took the build over
                var stored = build
                stored.status = "done"
                try await notify(stored)
            case .retry(let reason):
                logger.warning(
                    "packet build failed; will retry if an attempt is left", [LogKeys.error: .string(reason)])
                try await store.fail(build.id, worker: worker, error: reason, retry: true)
            case .refused(let reason):
                try await store.fail(build.id, worker: worker, error: reason, retry: false)
            }
        } catch {
            logger.warning("packet build not recorded", [LogKeys.error: .string("\(error)")])
        }
    }

    /// A UUID derived from the build and its generation, so a repeated notification step repeats the event's id.
    static func eventId(_ buildId: String, generation: Int) -> String {
        var b = Array(Digest.sha256(Array("packet-built:\(buildId):\(generation)".utf8)).prefix(16))
        b[6] = (b[6] & 0x0f) | 0x50
        b[8] = (b[8] & 0x3f) | 0x80
        let h = Array(Digest.hex(b))
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-"
            + String(h[20..<32])
    }

    /// The event and each owner's push, then the build marked notified (every step safe to repeat).
    private func notify(_ build: PacketStore.Build) async throws {
        let owners = try await store.owners(build.id, generation: build.generation)
        let event = CloudEvent(
            id: Self.eventId(build.id, generation: build.generation), source: "/mapvest/research",
            type: PacketBuiltEvent.type,
            time: Timestamp.iso8601(Date()), schemaVersion: 1, subject: build.ticker,
            data: PacketBuiltEvent(
                buildId: build.id, kind: build.kind, ticker: build.ticker, day: build.day, owners: owners.count))
        try await publisher.deliver(
            topic: Topics.events, key: build.ticker, value: Array(try JSONEncoder().encode(event)),
            until: .now + .seconds(30))
        for userId in owners {
            let push = PacketRules.push(
                userId: userId, kind: build.kind, ticker: build.ticker, buildId: build.id, generation: build.generation)
            try await publisher.deliver(
                topic: Topics.pushRequests, key: userId, value: Array(try JSONEncoder().encode(push)),
                until: .now + .seconds(30))
        }
        try await store.notified(build.id, generation: build.generation)
    }
}
