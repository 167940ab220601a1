import Foundation
import HTTPClient
import Synchronization

/// A service binary started by a test from `MAPVEST_BIN_DIR`, with its own admin port, killed when the test is done.
public final class ServiceProcess: @unchecked Sendable {
    public let name: String
    public let adminPort: Int
    public let process: Process
    public let logFile: URL

    private init(name: String, adminPort: Int, process: Process, logFile: URL) {
        self.name = name
        self.adminPort = adminPort
        self.process = process
        self.logFile = logFile
    }

    /// Processes told to stop; a new one starts only after they are gone, so a consumer group never sees a member
    /// leave while another joins (the dev broker's group coordinator handles that overlap poorly).
    private static let stopping = Mutex<[Process]>([])

    private static func waitForStoppedProcesses() async {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let alive = stopping.withLock { list -> Int in
                list.removeAll { !$0.isRunning }
                return list.count
            }
            if alive == 0 { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Starts `binary` from `MAPVEST_BIN_DIR` with the test stack's environment plus `extra`, and waits for `/readyz`.
    public static func start(_ binary: String, extra: [String: String] = [:]) async throws -> ServiceProcess {
        await waitForStoppedProcesses()
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
            "mapvest-\(binary)-\(adminPort).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logFile)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let service = ServiceProcess(name: binary, adminPort: adminPort, process: process, logFile: logFile)
        try await service.waitUntilReady()
        return service
    }

    public func waitUntilReady(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw Failure("\(name) exited early: \(log.suffix(2000))") }
            let ready = try? await testHTTPClient.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(adminPort)/readyz", timeout: .seconds(1)))
            if ready?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("\(name) not ready after \(timeout): \(log.suffix(2000))")
    }

    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// SIGTERM by default: the service drains and leaves its consumer group, so the next test's replicas take
    /// over at once instead of waiting out the session timeout.
    public func kill(signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        Self.stopping.withLock { $0.append(process) }
        Foundation.kill(process.processIdentifier, signal)
    }

    /// Sends SIGTERM and waits for a clean exit.
    public func stop() async -> Int32 {
        kill(signal: SIGTERM)
        for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(signal: SIGKILL) }
        await ChildProcess.waitForExit(process)
        return process.terminationStatus
    }

    deinit { kill() }
}

/// A setup step of a test that failed, with what went wrong.
public struct Failure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A TCP port that was free a moment ago on 127.0.0.1.
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure("socket failed") }
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
    guard bound else { throw Failure("bind failed") }
    return Int(UInt16(bigEndian: addr.sin_port))
}
