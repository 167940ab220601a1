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

    private static let source = Mutex<(@Sendable () -> IDs?)?>(nil)

    /// Installs (or with nil removes) where `current` reads the ids of the current task's span.
    public static func setSource(_ read: (@Sendable () -> IDs?)?) {
        source.withLock { $0 = read }
    }

    /// The ids of the span the current task works in, if it is recorded.
    public static var current: IDs? {
        source.withLock { $0 }?()
    }
}
