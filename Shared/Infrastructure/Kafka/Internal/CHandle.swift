/// Owns one short-lived librdkafka object (admin options, queues, events, metadata) and frees it in `deinit`.
/// `dependsOn` keeps the object it belongs to (usually the client handle) alive until it is freed.
final class CHandle<Pointer>: @unchecked Sendable {
    let raw: Pointer
    private let free: (Pointer) -> Void
    private let dependency: AnyObject?

    init(_ raw: Pointer, dependsOn dependency: AnyObject? = nil, free: @escaping (Pointer) -> Void) {
        self.raw = raw
        self.free = free
        self.dependency = dependency
    }

    deinit { free(raw) }
}
