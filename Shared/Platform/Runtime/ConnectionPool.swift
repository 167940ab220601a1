import Synchronization

/// The bookkeeping of a bounded, lazily filled pool as a pure state machine: idle connections, how many are open
/// or opening, and FIFO waiters. Every decision comes back as an action the owner performs outside its lock.
package struct PoolStateMachine<Connection, Waiter> {
    package struct Entry {
        package let id: UInt64
        package let waiter: Waiter
    }

    package enum AcquireAction {
        /// Hand out this idle connection (check it first: it may have died while idle).
        case use(Connection)
        /// A slot was reserved: open a new connection.
        case open
        /// Nothing free: wait (on the slow path the waiter was queued).
        case wait
        case closed
    }

    package enum ReleaseAction {
        /// Parked as idle, or nothing to do.
        case none
        /// Give this connection to the oldest waiter.
        case hand(Waiter, Connection)
        /// A slot was freed and reserved for the oldest waiter: open a connection for it.
        case openFor(Waiter)
        /// The pool is closed: close the connection.
        case close(Connection)
    }

    package let capacity: Int
    package private(set) var idle: [Connection] = []
    /// Connections that are open or being opened (idle + in use + opening).
    package private(set) var opened = 0
    package private(set) var waiters: [Entry] = []
    package private(set) var isClosed = false

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Fast path: no waiter is queued.
    package mutating func acquire() -> AcquireAction {
        if isClosed { return .closed }
        if let connection = idle.popLast() { return .use(connection) }
        if opened < capacity {
            opened += 1
            return .open
        }
        return .wait
    }

    /// Slow path: as `acquire`, but queues the waiter when nothing is free.
    package mutating func enqueue(id: UInt64, waiter: Waiter) -> AcquireAction {
        let action = acquire()
        if case .wait = action { waiters.append(Entry(id: id, waiter: waiter)) }
        return action
    }

    /// Removes a waiter that timed out or was cancelled; nil when it was already served.
    package mutating func removeWaiter(id: UInt64) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    /// A connection comes back. A broken one frees its slot (reserved again for the oldest waiter, if any).
    package mutating func release(_ connection: Connection, reusable: Bool) -> ReleaseAction {
        guard reusable else { return slotFreed() }
        if isClosed {
            opened -= 1
            return .close(connection)
        }
        if !waiters.isEmpty { return .hand(waiters.removeFirst().waiter, connection) }
        idle.append(connection)
        return .none
    }

    /// Opening a connection failed: its slot is free again.
    package mutating func openFailed() -> ReleaseAction { slotFreed() }

    /// A connection opened on behalf of a waiter is ready; false when the pool closed meanwhile.
    package mutating func openedForWaiter() -> Bool {
        if isClosed {
            opened -= 1
            return false
        }
        return true
    }

    private mutating func slotFreed() -> ReleaseAction {
        opened -= 1
        if !isClosed, !waiters.isEmpty {
            opened += 1
            return .openFor(waiters.removeFirst().waiter)
        }
        return .none
    }

    /// Closes the pool: returns the idle connections to close and the waiters to fail.
    package mutating func close() -> (idle: [Connection], waiters: [Waiter]) {
        isClosed = true
        let result = (idle, waiters.map(\.waiter))
        opened -= idle.count
        idle = []
        waiters = []
        return result
    }
}

/// A bounded pool of connections opened lazily. Each connection is used by one caller at a time; callers that find
/// none free wait in FIFO order up to `acquireTimeout`. Broken connections are discarded and replaced on demand.
package final class ConnectionPool<Connection: AnyObject & Sendable>: Sendable {
    /// What the pool needs from its owner.
    package struct Hooks: Sendable {
        /// Opens a new connection (its blocking work runs off the cooperative pool).
        package var open: @Sendable () async throws -> Connection
        /// Whether an idle connection is still usable (it may have died while idle).
        package var isUsable: @Sendable (Connection) async -> Bool
        package var close: @Sendable (Connection) async -> Void
        package var timeoutError: @Sendable () -> any Error
        package var closedError: @Sendable () -> any Error

        package init(
            open: @escaping @Sendable () async throws -> Connection,
            isUsable: @escaping @Sendable (Connection) async -> Bool,
            close: @escaping @Sendable (Connection) async -> Void, timeoutError: @escaping @Sendable () -> any Error,
            closedError: @escaping @Sendable () -> any Error
        ) {
            self.open = open
            self.isUsable = isUsable
            self.close = close
            self.timeoutError = timeoutError
            self.closedError = closedError
        }
    }

    /// A connection handed to a waiter, and whether it came from the idle list (and so needs a check).
    package struct Lease: Sendable {
        package let connection: Connection
        package let fromIdle: Bool
    }

    package typealias Waiter = CheckedContinuation<Lease, any Error>

    private let state: Mutex<PoolStateMachine<Connection, Waiter>>
    private let nextWaiterID = Atomic<UInt64>(0)
    private let acquireTimeout: Duration
    private let hooks: Hooks
    private let inUse: Gauge

    package init(capacity: Int, acquireTimeout: Duration, inUse: Gauge, hooks: Hooks) {
        self.state = Mutex(PoolStateMachine(capacity: capacity))
        self.acquireTimeout = acquireTimeout
        self.inUse = inUse
        self.hooks = hooks
    }

    /// A connection for the caller's exclusive use; give it back with `release`.
    package func acquire() async throws -> Connection {
        while true {
            let lease = try await lease()
            if !lease.fromIdle {
                inUse.add(1)
                return lease.connection
            }
            if await hooks.isUsable(lease.connection) {
                inUse.add(1)
                return lease.connection
            }
            perform(state.withLock { $0.release(lease.connection, reusable: false) }, discarding: lease.connection)
        }
    }

    /// Gives a connection back; a connection that is not `reusable` is closed and its slot freed.
    package func release(_ connection: Connection, reusable: Bool) {
        inUse.add(-1)
        let action = state.withLock { $0.release(connection, reusable: reusable) }
        perform(action, discarding: reusable ? nil : connection)
    }

    /// Fails every waiter, closes idle connections; connections in use are closed when released.
    package func close() async {
        let (idle, waiters) = state.withLock { $0.close() }
        for waiter in waiters { waiter.resume(throwing: hooks.closedError()) }
        for connection in idle { await hooks.close(connection) }
    }

    private func lease() async throws -> Lease {
        switch state.withLock({ $0.acquire() }) {
        case .use(let connection): return Lease(connection: connection, fromIdle: true)
        case .closed: throw hooks.closedError()
        case .open:
            do {
                return Lease(connection: try await hooks.open(), fromIdle: false)
            } catch {
                perform(state.withLock { $0.openFailed() }, discarding: nil)
                throw error
            }
        case .wait: break
        }

        let id = nextWaiterID.add(1, ordering: .relaxed).newValue
        let timeout = acquireTimeout
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            state.withLock { $0.removeWaiter(id: id) }?.resume(throwing: hooks.timeoutError())
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let action = state.withLock { state -> PoolStateMachine<Connection, Waiter>.AcquireAction? in
                    // Checked under the lock so a cancellation either sees the queued waiter or is seen here.
                    if Task.isCancelled { return nil }
                    return state.enqueue(id: id, waiter: waiter)
                }
                switch action {
                case nil: waiter.resume(throwing: CancellationError())
                case .use(let connection): waiter.resume(returning: Lease(connection: connection, fromIdle: true))
                case .open: open(for: waiter)
                case .closed: waiter.resume(throwing: hooks.closedError())
                case .wait: break
                }
            }
        } onCancel: {
            state.withLock { $0.removeWaiter(id: id) }?.resume(throwing: CancellationError())
        }
    }

    private func perform(_ action: PoolStateMachine<Connection, Waiter>.ReleaseAction, discarding: Connection?) {
        if let discarding {
            let close = hooks.close
            Task { await close(discarding) }
        }
        switch action {
        case .none: break
        case .hand(let waiter, let connection): waiter.resume(returning: Lease(connection: connection, fromIdle: false))
        case .openFor(let waiter): open(for: waiter)
        case .close(let connection):
            let close = hooks.close
            Task { await close(connection) }
        }
    }

    private func open(for waiter: Waiter) {
        Task { [self] in
            do {
                let connection = try await hooks.open()
                if state.withLock({ $0.openedForWaiter() }) {
                    waiter.resume(returning: Lease(connection: connection, fromIdle: false))
                } else {
                    await hooks.close(connection)
                    waiter.resume(throwing: hooks.closedError())
                }
            } catch {
                perform(state.withLock { $0.openFailed() }, discarding: nil)
                waiter.resume(throwing: error)
            }
        }
    }
}
