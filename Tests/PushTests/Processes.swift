import Foundation
import HTTPClient
import TestSupport

/// A service binary started by a test from `MAPVEST_BIN_DIR`, on its own admin port; killed when the test is done.
final class BinaryProcess: @unchecked Sendable {
    let name: String
    let process: Process
    let logFile: URL
    let adminPort: Int

    private init(name: String, process: Process, logFile: URL, adminPort: Int) {
        self.name = name
        self.process = process
        self.logFile = logFile
        self.adminPort = adminPort
    }

    /// Starts `binary` with the test stack's environment plus `extra` and waits for `/readyz`.
    static func start(_ binary: String, extra: [String: String]) async throws -> BinaryProcess {
        let binDir = try TestEnvironment.require("MAPVEST_BIN_DIR")
        let adminPort = try freePort()
        var env = ProcessInfo.processInfo.environment
        env["MAPVEST_ENV"] = "dev"
        env["ADMIN_PORT"] = String(adminPort)
        env["SHUTDOWN_TIMEOUT_MS"] = "5000"
        for (k, v) in extra { env[k] = v }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDir).appendingPathComponent(binary)
        process.environment = env
        let logFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mapvest-push-\(binary)-\(adminPort).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logFile)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let started = BinaryProcess(name: binary, process: process, logFile: logFile, adminPort: adminPort)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw TestFailure("\(binary) exited early: \(started.log.suffix(2000))") }
            let ready = try? await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(adminPort)/readyz", timeout: .seconds(1)))
            if ready?.status == 200 { return started }
            try await Task.sleep(for: .milliseconds(50))
        }
        started.kill()
        throw TestFailure("\(binary) not ready: \(started.log.suffix(2000))")
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    func kill(signal: Int32 = SIGKILL) {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, signal)
    }

    deinit { kill() }
}

/// A TCP port that was free a moment ago on 127.0.0.1.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket failed") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
        }
    }
    guard bound else { throw TestFailure("bind failed") }
    return Int(UInt16(bigEndian: addr.sin_port))
}
