import Synchronization

/// The trace and span a log line belongs to, written by `Logger` as `trace_id` and `span_id`. The tracer registers
/// a source (`setSource`) that reads the span of the current task, so a traced span costs logging nothing until a
/// line is actually written.
public enum LogCorrelation {
    /// A span's ids as lower-case hex.
    public struct IDs: Sendable {
        public let traceID: String
        public let spanID: String

        public init(traceID: String, spanID: String) {
            self.traceID = traceID
            self.spanID = spanID
        }
    }

    /// The reader, boxed: a closure held directly as a `Mutex`'s value is re-wrapped in reabstraction thunks each
    /// time `withLock` writes it back, so every read would make the next one slower (measured: 20,000 reads took
    /// 2.1 s, then 10.1 s, then 24.9 s). A class reference is written back as it is.
    private final class Source: Sendable {
        let read: @Sendable () -> IDs?
        init(_ read: @escaping @Sendable () -> IDs?) { self.read = read }
    }

    private static let source = Mutex<Source?>(nil)

    /// Installs (or with nil removes) where `current` reads the ids of the current task's span.
    public static func setSource(_ read: (@Sendable () -> IDs?)?) {
        let boxed = read.map(Source.init)
        source.withLock { $0 = boxed }
    }

    /// The ids of the span the current task works in, if it is recorded.
    public static var current: IDs? {
        source.withLock { $0 }?.read()
    }
}
