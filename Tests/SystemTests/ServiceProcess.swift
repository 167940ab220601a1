import Foundation
import Synchronization
import HTTPClient
import TestSupport

/// A service binary started by a test, with its own admin port, killed when the test is done.
final class ServiceProcess: @unchecked Sendable {
    let name: String
    let adminPort: Int
    let process: Process
    let logFile: URL

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
    static func start(_ binary: String, extra: [String: String] = [:]) async throws -> ServiceProcess {
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

    func waitUntilReady(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw Failure("\(name) exited early: \(log.suffix(2000))") }
            let ready = try? await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(adminPort)/readyz", timeout: .seconds(1)))
            if ready?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("\(name) not ready after \(timeout): \(log.suffix(2000))")
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// SIGTERM by default: the service drains and leaves its consumer group, so the next test's replicas take
    /// over at once instead of waiting out the session timeout.
    func kill(signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        Self.stopping.withLock { $0.append(process) }
        Foundation.kill(process.processIdentifier, signal)
    }

    /// Sends SIGTERM and waits for a clean exit.
    func stop() async -> Int32 {
        kill(signal: SIGTERM)
        for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(signal: SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { kill() }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port that was free a moment ago on 127.0.0.1.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure("socket failed") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    guard bound else { throw Failure("bind failed") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// A gateway process and its public base URL.
struct GatewayProcess {
    let process: ServiceProcess
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a gateway. Limits are off unless `limits` is true (routing tests must not trip the identify buckets,
    /// which key anonymous callers by IP and every test client is 127.0.0.1).
    static func start(instance: String, limits: Bool = false, extra: [String: String] = [:]) async throws
        -> GatewayProcess
    {
        let port = try freePort()
        var env = ["PORT": String(port), "GATEWAY_INSTANCE_ID": instance, "AUTH_RETURN_CODE": "1"]
        if limits {
            env["TRUSTED_PROXY_HOPS"] = "1"
        } else {
            env["GATEWAY_LIMITS"] = "off"
        }
        for (k, v) in extra { env[k] = v }
        return GatewayProcess(process: try await ServiceProcess.start("Gateway", extra: env), port: port)
    }
}
