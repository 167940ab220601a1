import Foundation
import Synchronization

/// A structured value for a log field.
public enum LogValue: Sendable, ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, CustomStringConvertible
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }

    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .bool(let b): String(b)
        }
    }

    fileprivate var json: String {
        switch self {
        case .string(let s): JSONText.quote(s)
        case .int(let i): String(i)
        case .double(let d): d.isFinite ? String(d) : "null"
        case .bool(let b): b ? "true" : "false"
        }
    }
}

/// JSON-lines logger: one object per line on standard error, with dotted lower-case field keys
/// (`request.id`, `kafka.topic`). Secrets, push tokens and photos are never passed to it.
///
/// Repeated warnings and errors are rate-limited per (label, level, message): the first line is written, then at most
/// one per the sink's `repeatInterval`, carrying `log.suppressed` (lines dropped since the last one written); every
/// dropped line counts in `log_lines_suppressed_total{level}`. An outage then costs a few lines, not thousands.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug = 0, info, warning, error
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }

        public init?(name: String) {
            switch name.lowercased() {
            case "debug", "trace": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
    }

    public let label: String
    public let minimumLevel: Level
    /// JSON lines, or logfmt-style text (`LOG_FORMAT`; see `LogFormat.fromEnvironment`). Memory sinks get JSON.
    public let format: LogFormat
    public private(set) var metadata: [String: LogValue]
    private let sink: LogSink

    public init(label: String, level: Level? = nil, sink: LogSink = .standardError, format: LogFormat? = nil) {
        self.label = label
        self.minimumLevel = level ?? Level(name: ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "") ?? .info
        self.format = format ?? (sink.isMemory ? .json : LogFormat.fromEnvironment())
        self.metadata = [:]
        self.sink = sink
    }

    /// A copy that adds `fields` to every line it writes.
    public func with(_ fields: [String: LogValue]) -> Logger {
        var copy = self
        copy.metadata.merge(fields) { _, new in new }
        return copy
    }

    public func debug(_ message: @autoclosure () -> String, _ fields: [String: LogValue] = [:]) {
        log(.debug, message(), fields)
    }
    public func info(_ message: @autoclosure () -> String, _ fields: [String: LogValue] = [:]) {
        log(.info, message(), fields)
    }
    public func warning(_ message: @autoclosure () -> String, _ fields: [String: LogValue] = [:]) {
        log(.warning, message(), fields)
    }
    public func error(_ message: @autoclosure () -> String, _ fields: [String: LogValue] = [:]) {
        log(.error, message(), fields)
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ fields: [String: LogValue] = [:]) {
        guard level >= minimumLevel else { return }
        let message = message()
        var fields = fields
        if level >= .warning {
            guard let suppressed = sink.admit(key: "\(label)|\(level.name)|\(message)") else {
                Self.suppressedCounter(level).increment()
                return
            }
            if suppressed > 0 { fields[LogKeys.logSuppressed] = .int(suppressed) }
        }
        if let ids = LogCorrelation.current {
            fields[LogKeys.traceId] = .string(ids.traceID)
            fields[LogKeys.spanId] = .string(ids.spanID)
        }
        if format == .text {
            let fields = metadata.merging(fields, uniquingKeysWith: { _, new in new }).sorted(by: { $0.key < $1.key })
            sink.write(
                LogFormat.textLine(
                    ts: Timestamp.iso8601(Date()), level: level.name, logger: label, message: message,
                    fields: fields.map { ($0.key, $0.value) }))
            return
        }
        var line = "{\"ts\":\"\(Timestamp.iso8601(Date()))\",\"level\":\"\(level.name)\",\"logger\":"
        line += JSONText.quote(label)
        line += ",\"msg\":" + JSONText.quote(message)
        for (key, value) in metadata.merging(fields, uniquingKeysWith: { _, new in new }).sorted(by: { $0.key < $1.key }
        ) {
            line += "," + JSONText.quote(key) + ":" + value.json
        }
        line += "}\n"
        sink.write(line)
    }

    private static let suppressedWarnings = MetricsRegistry.shared.counter(
        MetricNames.logLinesSuppressed, help: "Repeated warning and error lines not written (rate-limited).",
        labels: ["level": "warning"])
    private static let suppressedErrors = MetricsRegistry.shared.counter(
        MetricNames.logLinesSuppressed, help: "Repeated warning and error lines not written (rate-limited).",
        labels: ["level": "error"])

    private static func suppressedCounter(_ level: Level) -> Counter {
        level == .error ? suppressedErrors : suppressedWarnings
    }
}

/// Where log lines go, and the memory of repeated lines behind the logger's rate limit. Tests capture lines with
/// `.memory`.
public final class LogSink: Sendable {
    private struct Repeat {
        var lastWritten: ContinuousClock.Instant
        var suppressed: Int
    }

    private let fd: Int32?
    private let captured: Mutex<[String]>
    private let repeats = Mutex<[String: Repeat]>([:])
    /// At most one line per message key this often (warnings and errors; zero turns the limit off).
    public let repeatInterval: Duration

    private init(fd: Int32?, repeatInterval: Duration) {
        self.fd = fd
        self.captured = Mutex([])
        self.repeatInterval = repeatInterval
    }

    /// Standard error; repeated warnings and errors at most once per 5 s each.
    public static let standardError = LogSink(fd: 2, repeatInterval: .seconds(5))
    /// Keeps lines in memory (for tests that assert on logs); by default nothing is rate-limited.
    public static func memory(repeatInterval: Duration = .zero) -> LogSink {
        LogSink(fd: nil, repeatInterval: repeatInterval)
    }

    /// Whether a line with this key may be written now: nil to drop it, else how many were dropped since the last.
    func admit(key: String) -> Int? {
        guard repeatInterval > .zero else { return 0 }
        let now = ContinuousClock.now
        return repeats.withLock { table -> Int? in
            if var entry = table[key] {
                guard now - entry.lastWritten >= repeatInterval else {
                    entry.suppressed += 1
                    table[key] = entry
                    return nil
                }
                table[key] = Repeat(lastWritten: now, suppressed: 0)
                return entry.suppressed
            }
            // Keys are code-owned messages; a bound keeps an interpolated message from growing the table forever.
            if table.count >= 1024 { table = table.filter { now - $0.value.lastWritten < repeatInterval } }
            table[key] = Repeat(lastWritten: now, suppressed: 0)
            return 0
        }
    }

    public var lines: [String] { captured.withLock { $0 } }

    var isMemory: Bool { fd == nil }

    func write(_ line: String) {
        guard let fd else {
            captured.withLock { $0.append(line) }
            return
        }
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(fd, base + offset, buffer.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
