import Foundation

/// Access to the real servers the test command started (broker, Postgres, Redis) through environment variables.
public enum TestEnvironment {
    /// The variable's value; a missing variable is a setup error of the test command, reported loudly.
    public static func require(_ key: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[key], !value.isEmpty else {
            throw SetupError(message: "\(key) is not set: run the tests through scripts/test.sh, which starts the stack")
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
