import Foundation
import TestSupport

/// A private DevBroker for a test that freezes or stops its broker (the shared one must stay up for the rest of the
/// suite). It runs on the same librdkafka as the test stack's broker (`MAPVEST_DEV_BROKER_LIBDIR`).
final class DevBrokerProcess: @unchecked Sendable {
    let process: Process
    let bootstrapServers: String

    private init(process: Process, bootstrapServers: String) {
        self.process = process
        self.bootstrapServers = bootstrapServers
    }

    static func start() async throws -> DevBrokerProcess {
        let binDir = try TestEnvironment.require("MAPVEST_BIN_DIR")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mapvest-broker-\(UUID().uuidString).bootstrap")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDir).appendingPathComponent("DevBroker")
        process.arguments = [file.path]
        var env = ProcessInfo.processInfo.environment
        if let lib = env["MAPVEST_DEV_BROKER_LIBDIR"], !lib.isEmpty { env["LD_LIBRARY_PATH"] = lib }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8) {
                let servers = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if !servers.isEmpty { return DevBrokerProcess(process: process, bootstrapServers: servers) }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw Failure("private DevBroker did not start")
    }

    /// Freezes the broker: its connections stay open but nothing answers.
    func freeze() { kill(process.processIdentifier, SIGSTOP) }

    func resume() { kill(process.processIdentifier, SIGCONT) }

    /// Resumes (a stopped process ignores SIGTERM until then) and terminates it.
    func stop() {
        guard process.isRunning else { return }
        resume()
        process.terminate()
    }

    deinit { stop() }
}
