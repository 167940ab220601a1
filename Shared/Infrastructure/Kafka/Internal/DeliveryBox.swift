import CRdKafka
import Runtime
import Synchronization

/// The retained per-message context of a produced message; the delivery report releases it. Whoever waits is
/// completed exactly once: an `enqueue` callback, or a `send` continuation, which a cancelled task resumes early
/// (a later report then finds the box done and is dropped).
package final class DeliveryBox: Sendable {
    package typealias Delivery = KafkaProducer.Delivery

    private enum Waiter: Sendable {
        case callback(@Sendable (Result<Delivery, KafkaError>) -> Void)
        /// `wait` has not installed its continuation yet.
        case unarmed
        case continuation(CheckedContinuation<Delivery, any Error>)
        /// Cancelled before the continuation was installed: it is resumed as soon as it is.
        case cancelled
        case done
    }

    let topic: String
    let state: ProducerState
    private let waiter: Mutex<Waiter>

    /// A box for `wait(enqueue:)`.
    package init(topic: String, state: ProducerState) {
        self.topic = topic
        self.state = state
        waiter = Mutex(.unarmed)
    }

    /// A box whose report goes to `onDelivery` (on the poll thread).
    init(
        topic: String, state: ProducerState, onDelivery: @escaping @Sendable (Result<Delivery, KafkaError>) -> Void
    ) {
        self.topic = topic
        self.state = state
        waiter = Mutex(.callback(onDelivery))
    }

    /// Calls `enqueue` with the box and awaits its completion: the delivery report, the error `enqueue` throws, or
    /// `CancellationError` as soon as the task is cancelled (even before; `enqueue` is called anyway).
    package func wait(enqueue: (DeliveryBox) throws(KafkaError) -> Void) async throws -> Delivery {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                arm(continuation)
                do throws(KafkaError) {
                    try enqueue(self)
                } catch {
                    complete(.failure(error))
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Completes the waiter unless it already was (a cancelled `send`, or a second report).
    package func complete(_ result: Result<Delivery, KafkaError>) {
        let waiter = self.waiter.withLock { waiter in
            defer { waiter = .done }
            return waiter
        }
        switch waiter {
        case .callback(let onDelivery): onDelivery(result)
        case .continuation(let continuation): continuation.resume(with: result)
        case .unarmed, .cancelled, .done: break
        }
    }

    private func arm(_ continuation: CheckedContinuation<Delivery, any Error>) {
        let cancelled = waiter.withLock { waiter in
            guard case .cancelled = waiter else {
                waiter = .continuation(continuation)
                return false
            }
            waiter = .done
            return true
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
    }

    private func cancel() {
        let continuation = waiter.withLock { waiter -> CheckedContinuation<Delivery, any Error>? in
            switch waiter {
            case .unarmed:
                waiter = .cancelled
                return nil
            case .continuation(let continuation):
                waiter = .done
                return continuation
            case .callback, .cancelled, .done:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }
}

/// librdkafka's delivery-report callback (on the poll thread): counts successful deliveries as proof of life and
/// completes the message's box.
let deliveryReportCallback:
    @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
        _, message, _ in
        guard let message, let opaque = message.pointee._private else { return }
        let box = Unmanaged<DeliveryBox>.fromOpaque(opaque).takeRetainedValue()
        let m = message.pointee
        if m.err == RD_KAFKA_RESP_ERR_NO_ERROR {
            box.state.lifecycle.withLock { $0.delivered() }
            KafkaMetrics.producedCounter(box.topic).increment()
            box.complete(.success((m.partition, m.offset)))
        } else {
            KafkaMetrics.produceErrors.increment()
            let status = rd_kafka_message_status(message)
            box.complete(
                .failure(KafkaError(m.err).markingPossiblyDelivered(status != RD_KAFKA_MSG_STATUS_NOT_PERSISTED)))
        }
    }

/// Calls `body` with `bytes`' storage, or with (nil, 0) when absent or empty.
func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
    guard let bytes, !bytes.isEmpty else { return body(nil, 0) }
    return bytes.withUnsafeBytes { body($0.baseAddress, $0.count) }
}
