import Contracts
import Foundation
import HTTPServer
import Runtime
import Synchronization
import TestSupport
import UpstreamFakes

/// Runs `body` against a fake upstream and always shuts it down.
func withFake<T>(
    _ handler: @escaping FakeUpstream.Handler, _ body: (FakeUpstream) async throws -> T
) async throws -> T {
    let fake = try FakeUpstream(handler)
    do {
        let result = try await body(fake)
        await fake.shutdown()
        return result
    } catch {
        await fake.shutdown()
        throw error
    }
}

/// A JSON answer from a literal body.
func jsonResponse(_ status: Int, _ text: String) -> HTTPResponse {
    .json(status, raw: Array(text.utf8))
}

/// A logger that keeps its lines in memory (and off the test output).
func quietLogger(_ sink: LogSink = .memory()) -> Logger {
    Logger(label: "test", level: .debug, sink: sink)
}

/// Parses recorded request bodies for assertions.
func parseJSON(_ bytes: [UInt8]) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var number: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
}

/// A counter shared with a fake's handler.
final class CallCounter: Sendable {
    private let value = Mutex(0)
    /// Increments and returns the new value.
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
