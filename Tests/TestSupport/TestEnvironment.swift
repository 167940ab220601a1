import Foundation
import Testing

/// Access to the real servers the test command started (broker, Postgres, Redis) through environment variables.
///
/// Two tiers: `scripts/test.sh` starts the stack and exports its addresses, so every test runs; a plain `swift test`
/// with no stack runs the pure tests and cancels (skips) each stack test at its first `require`, saying why.
public enum TestEnvironment {
    /// The variables `scripts/test.sh` exports when it has started the stack.
    static let stackVariables = ["KAFKA_BROKERS", "POSTGRES_URL", "REDIS_URL"]

    /// Whether a stack was started for this run (any of its addresses is set).
    public static var stackIsRunning: Bool {
        stackVariables.contains { !(ProcessInfo.processInfo.environment[$0] ?? "").isEmpty }
    }

    /// The variable's value. With no stack at all, the calling test is skipped with the reason; with a stack, a
    /// missing variable is a setup error of the test command, reported loudly.
    public static func require(_ key: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[key], !value.isEmpty else {
            let reason = "\(key) is not set: run the tests through scripts/test.sh, which starts the stack"
            if !stackIsRunning, Test.current != nil { try Test.cancel("needs the stack: \(reason)") }
            throw SetupError(message: reason)
        }
        return value
    }

    /// A name unique to this test run, for topics, groups, schemas and keys.
    public static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UInt32.random(in: 0...UInt32.max))-\(ProcessInfo.processInfo.processIdentifier)"
    }

    public struct SetupError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
