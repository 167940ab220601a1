import Foundation

/// What a finished child process left: its exit status and everything it wrote.
public struct ChildProcessResult: Sendable {
    public var status: Int32
    public var output: [UInt8]
    public var errors: [UInt8]
}

/// Runs an outside program (ImageMagick, the MCP Python client) to completion on its own thread.
///
/// Waiting for a child blocks, and the cooperative pool has only as many threads as cores: two tests waiting for
/// `convert` on the pool stall every other test's handlers and streams on a 2-core machine.
public enum ChildProcess {
    public static func run(_ executable: String, _ arguments: [String]) async throws -> ChildProcessResult {
        try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let out = Pipe()
            // Stderr goes to a file, so a chatty child never blocks on a second full pipe while stdout is read.
            let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "child-\(UUID().uuidString).err")
            guard FileManager.default.createFile(atPath: errorsFile.path, contents: nil) else {
                throw RawError(description: "cannot create \(errorsFile.path)")
            }
            defer { try? FileManager.default.removeItem(at: errorsFile) }
            let errorsHandle = try FileHandle(forWritingTo: errorsFile)
            defer { try? errorsHandle.close() }
            process.standardOutput = out
            process.standardError = errorsHandle
            try process.run()
            let output = Array(out.fileHandleForReading.readDataToEndOfFile())
            process.waitUntilExit()
            let errors = Array((try? Data(contentsOf: errorsFile)) ?? Data())
            return ChildProcessResult(status: process.terminationStatus, output: output, errors: errors)
        }
    }

    /// Waits off the pool for `process`, already signalled, to exit.
    public static func waitForExit(_ process: Process) async {
        let box = UncheckedProcess(process: process)
        _ = try? await offPool { box.process.waitUntilExit() }
    }
}

/// `Process` is a reference type the test owns alone; it crosses to the waiting thread and back.
private struct UncheckedProcess: @unchecked Sendable {
    let process: Process
}
