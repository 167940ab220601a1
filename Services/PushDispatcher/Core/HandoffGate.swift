/// A counting semaphore with strict FIFO hand-over: a released permit goes to the oldest waiter, never to a caller
/// that arrives later (no barging). Bounds the handoffs of one process (`PUSH_MAX_CONCURRENT_HANDOFFS`).
public actor HandoffGate {
    private var available: Int
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var head = 0
    private var nextId: UInt64 = 0

    public init(permits: Int) {
        available = max(1, permits)
    }

    /// Waits for a permit; throws `CancellationError` when the task is cancelled while waiting.
    public func acquire() async throws {
        if available > 0 && head == waiters.count {
            available -= 1
            return
        }
        nextId += 1
        let id = nextId
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    /// Returns a permit: to the oldest waiter if any.
    public func release() {
        if head < waiters.count {
            let next = waiters[head].continuation
            head += 1
            compact()
            next.resume()
        } else {
            available += 1
        }
    }

    /// Runs `body` holding a permit.
    public nonisolated func withPermit<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await acquire()
        do {
            let value = try await body()
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    /// Waiters queued now (for metrics and tests).
    public var queued: Int { waiters.count - head }

    private func cancel(_ id: UInt64) {
        guard let index = waiters[head...].firstIndex(where: { $0.id == id }) else { return }
        let continuation = waiters.remove(at: index).continuation
        continuation.resume(throwing: CancellationError())
    }

    private func compact() {
        if head > 64 && head * 2 > waiters.count {
            waiters.removeFirst(head)
            head = 0
        }
    }
}
