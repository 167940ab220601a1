import Synchronization

/// Runs `work` in its own task and returns its result, or nil once `timeout` has passed — without waiting for work
/// that does not stop when cancelled (e.g. a caller of a shared single-flight computation). On timeout, and when the
/// caller is cancelled, the work is cancelled and left to finish on its own; whatever it stores (a cache entry)
/// still lands. Use `withDeadline` when the work must be over before this returns.
public func withTimeLimit<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
    let gate = OutcomeGate<T>()
    let worker = Task { gate.deliver(await work()) }
    let timer = Task {
        try? await Task.sleep(for: timeout)
        if gate.deliver(nil) { worker.cancel() }
    }
    let result = await withTaskCancellationHandler {
        await gate.wait()
    } onCancel: {
        if gate.deliver(nil) { worker.cancel() }
    }
    timer.cancel()
    return result
}

/// One outcome, delivered once, to one waiter that may arrive before or after it.
private final class OutcomeGate<T: Sendable>: Sendable {
    private enum State {
        case pending(CheckedContinuation<T?, Never>?)
        case done(T?)
    }
    private let state = Mutex<State>(.pending(nil))

    /// Delivers `value` unless an outcome was already delivered; true when this call delivered it.
    @discardableResult
    func deliver(_ value: T?) -> Bool {
        let (delivered, waiter) = state.withLock { s -> (Bool, CheckedContinuation<T?, Never>?) in
            guard case .pending(let waiter) = s else { return (false, nil) }
            s = .done(value)
            return (true, waiter)
        }
        waiter?.resume(returning: value)
        return delivered
    }

    func wait() async -> T? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> T?? in
                switch s {
                case .done(let value): return .some(value)
                case .pending:
                    s = .pending(continuation)
                    return .none
                }
            }
            if case .some(let value) = ready { continuation.resume(returning: value) }
        }
    }
}
