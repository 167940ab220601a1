import Foundation
import Synchronization

/// Configuration read from environment variables, with typed accessors and documented defaults.
///
/// A variable that is unset (or empty) takes its default; one that is set but does not parse is never silently
/// replaced by the default: the accessor notes it, and `validate()` — called by every binary once its parts are
/// built — refuses to start, naming each such variable.
public struct Environment: Sendable {
    public let values: [String: String]
    private let problems = ProblemLog()

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The value of `key`, or nil when unset or empty.
    public func get(_ key: String) -> String? {
        guard let v = values[key], !v.isEmpty else { return nil }
        return v
    }

    public func get(_ key: String, default value: String) -> String { get(key) ?? value }

    /// The parsed value of `key`, `value` when unset; set but unparseable → `value`, noted for `validate()`.
    public func get<T: LosslessStringConvertible>(_ key: String, default value: T) -> T {
        guard let raw = get(key) else { return value }
        guard let parsed = T(raw.trimmingCharacters(in: .whitespaces)) else {
            problems.note(key, "is set to \"\(raw)\", which is not a valid \(T.self)")
            return value
        }
        return parsed
    }

    /// A flag is on when set to `1`, `true` or `yes`.
    public func flag(_ key: String) -> Bool {
        guard let v = get(key)?.lowercased() else { return false }
        return v == "1" || v == "true" || v == "yes"
    }

    /// A duration given in milliseconds (a whole number ≥ 0); set but invalid → `value`, noted for `validate()`.
    public func milliseconds(_ key: String, default value: Duration) -> Duration {
        guard let raw = get(key) else { return value }
        guard let ms = Int64(raw.trimmingCharacters(in: .whitespaces)), ms >= 0 else {
            problems.note(key, "is set to \"\(raw)\", which is not a whole number of milliseconds")
            return value
        }
        return .milliseconds(ms)
    }

    public func require(_ key: String) throws -> String {
        guard let v = get(key) else { throw ConfigurationError(key: key, reason: "is required") }
        return v
    }

    /// The parsed value of a required variable: unset or unparseable is an error naming it.
    public func require<T: LosslessStringConvertible>(_ key: String, as type: T.Type) throws -> T {
        let raw = try require(key)
        guard let parsed = T(raw.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(key: key, reason: "is set to \"\(raw)\", which is not a valid \(T.self)")
        }
        return parsed
    }

    /// Throws the first problem noted by the accessors so far (all of them in its text), so a binary with a
    /// mistyped variable refuses to start instead of running on a default.
    public func validate() throws {
        let noted = problems.all
        guard let first = noted.first else { return }
        let others = noted.dropFirst().map { "\($0.key) \($0.reason)" }
        throw ConfigurationError(
            key: first.key, reason: ([first.reason] + others).joined(separator: "; "))
    }

    /// Every variable starting with `prefix`, with the prefix removed.
    public func withPrefix(_ prefix: String) -> [String: String] {
        var out: [String: String] = [:]
        for (k, v) in values where k.hasPrefix(prefix) { out[String(k.dropFirst(prefix.count))] = v }
        return out
    }

    /// `MAPVEST_ENV`: `dev` or `production`. Unset means production (fail closed).
    public var isDevelopment: Bool { self.get("MAPVEST_ENV")?.lowercased() == "dev" }
}

/// A configuration value that is missing or invalid; the binary refuses to start.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let key: String
    public let reason: String
    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }
    public var description: String { "configuration: \(key) \(reason)" }
}

/// The variables an `Environment`'s accessors found set but unparseable, first noted first.
private final class ProblemLog: Sendable {
    private let entries = Mutex<[(key: String, reason: String)]>([])

    func note(_ key: String, _ reason: String) {
        entries.withLock { list in
            if !list.contains(where: { $0.key == key }) { list.append((key, reason)) }
        }
    }

    var all: [(key: String, reason: String)] { entries.withLock { $0 } }
}
