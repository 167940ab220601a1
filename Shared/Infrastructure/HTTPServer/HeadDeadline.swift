import CMicroHTTPD
import Foundation
import Synchronization

/// A total deadline for each request head. libmicrohttpd's own timeout is an idle one, reset by every byte, so a
/// head dripped one byte a second would hold its connection for ever. Each connection's head must be complete
/// within `limit` of the connection opening (the first request) or of its request line (later requests on a kept-
/// alive connection, whose wait for that line is bounded by the idle timeout from the previous answer); past it
/// the socket is shut down, and MHD closes the connection.
///
/// Connections are tracked from MHD's connection notifications; the socket is shut down (never closed) under the
/// same lock the close notification takes, which MHD sends before it closes the descriptor.
final class HeadDeadline: Sendable {
    private struct Entry {
        let socket: Int32
        /// When the head being read must be complete; nil while no head is being read (a request in hand).
        var deadline: ContinuousClock.Instant?
    }

    let limit: Duration
    let idle: Duration
    private let connections = Mutex<[UInt: Entry]>([:])
    private let running = Atomic<Bool>(true)
    /// Connections cut off at the deadline (for tests and logs).
    let cutOff = Atomic<Int>(0)

    init(limit: Duration, idle: Duration) {
        self.limit = limit
        self.idle = idle
    }

    /// Starts the watch thread (not the cooperative pool: it sleeps between sweeps).
    func start() {
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                usleep(Self.sweepMicroseconds)
                sweep(now: .now)
            }
        }
        thread.name = "http-head-deadline"
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }

    static let sweepMicroseconds: UInt32 = 100_000

    func opened(_ connection: OpaquePointer, socket: Int32) {
        let deadline = ContinuousClock.now + limit
        connections.withLock { $0[Self.key(connection)] = Entry(socket: socket, deadline: deadline) }
    }

    func closed(_ connection: OpaquePointer) {
        connections.withLock { _ = $0.removeValue(forKey: Self.key(connection)) }
    }

    /// A request line arrived: the rest of its head is due within `limit`.
    func requestLine(_ connection: OpaquePointer) {
        let due = ContinuousClock.now + limit
        update(connection) { $0 = min($0 ?? due, due) }
    }

    /// The head is complete: no deadline while the request is handled.
    func headComplete(_ connection: OpaquePointer) { update(connection) { $0 = nil } }

    /// The answer is sent: a kept-alive connection's next request line is due within the idle timeout.
    func requestDone(_ connection: OpaquePointer) {
        let due = ContinuousClock.now + max(idle, limit)
        update(connection) { $0 = due }
    }

    private func update(_ connection: OpaquePointer, _ change: (inout ContinuousClock.Instant?) -> Void) {
        connections.withLock { all in
            let key = Self.key(connection)
            guard var entry = all[key] else { return }
            change(&entry.deadline)
            all[key] = entry
        }
    }

    /// Shuts down every connection whose head is overdue.
    func sweep(now: ContinuousClock.Instant) {
        connections.withLock { all in
            for (key, entry) in all {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                shutdown(entry.socket, Int32(SHUT_RDWR))
                all[key]?.deadline = nil
                cutOff.add(1, ordering: .relaxed)
            }
        }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }
}

/// `MHD_OPTION_NOTIFY_CONNECTION`: registers each connection with its core's `HeadDeadline` (cls is the unretained
/// `ServerCore`).
let connectionNotifyCallback: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let deadlines = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().headDeadline
    if code == MHD_ConnectionNotificationCode(rawValue: 0) {
        deadlines.opened(connection, socket: mapvest_mhd_connection_socket(connection))
    } else {
        deadlines.closed(connection)
    }
}
