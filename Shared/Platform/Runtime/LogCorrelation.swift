/// The trace and span a log line belongs to: set by the tracer around the work a recorded span covers, written by
/// `Logger` as `trace_id` and `span_id`.
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

    @TaskLocal public static var current: IDs?
}
