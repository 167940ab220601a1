import Foundation

/// Configuration read from environment variables, with typed accessors and documented defaults.
public struct Environment: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The value of `key`, or nil when unset or empty.
    public func get(_ key: String) -> String? {
        guard let v = values[key], !v.isEmpty else { return nil }
        return v
    }

    public func get(_ key: String, default value: String) -> String { get(key) ?? value }

    public func get<T: LosslessStringConvertible>(_ key: String, default value: T) -> T {
        get(key).flatMap { T($0.trimmingCharacters(in: .whitespaces)) } ?? value
    }

    /// A flag is on when set to `1`, `true` or `yes`.
    public func flag(_ key: String) -> Bool {
        guard let v = get(key)?.lowercased() else { return false }
        return v == "1" || v == "true" || v == "yes"
    }

    /// A duration given in milliseconds.
    public func milliseconds(_ key: String, default value: Duration) -> Duration {
        guard let ms = get(key).flatMap({ Int64($0) }), ms >= 0 else { return value }
        return .milliseconds(ms)
    }

    public func require(_ key: String) throws -> String {
        guard let v = get(key) else { throw ConfigurationError(key: key, reason: "is required") }
        return v
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
