import Foundation

/// Faults a test can inflict on the stack `scripts/test.sh` started: Postgres or Redis stopped, then started again
/// on the same port (their clients must reconnect by themselves). Needs `STACK_DIR`, `STACK_PG_OPTIONS`,
/// `POSTGRES_URL` and `REDIS_URL` from the test command; Postgres runs as the `postgres` user, as there.
public enum StackFaults {
    static let pgCtl = "/usr/lib/postgresql/15/bin/pg_ctl"

    /// `pg_ctl stop -m fast`: sessions are terminated, new connections refused until `startPostgres()`.
    public static func stopPostgres() async throws {
        try await run(
            "/usr/sbin/runuser", ["-u", "postgres", "--", pgCtl, "-D", try pgData(), "-m", "fast", "-w", "stop"])
    }

    /// A Postgres outage on a schedule: stopped `down` after `start`, started again `up` after it.
    public static func postgresOutage(from start: ContinuousClock.Instant, down: Duration, up: Duration) async throws {
        try await Task.sleep(until: start + down)
        try await stopPostgres()
        try await Task.sleep(until: start + up)
        try await startPostgres()
    }

    public static func startPostgres() async throws {
        let data = try pgData()
        try await run(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", pgCtl, "-D", data, "-l", data + "/../server.log", "-w", "-o",
                try TestEnvironment.require("STACK_PG_OPTIONS"), "start",
            ])
    }

    /// SIGSTOP to the postmaster and its backends: connections stay open and queries are never answered (a hung
    /// host), until `thawPostgres()`.
    public static func freezePostgres() throws {
        for pid in try postgresProcesses() { kill(pid, SIGSTOP) }
    }

    public static func thawPostgres() throws {
        for pid in try postgresProcesses() { kill(pid, SIGCONT) }
    }

    /// The postmaster (first line of `postmaster.pid`) and its children.
    private static func postgresProcesses() throws -> [pid_t] {
        let lines = try String(contentsOfFile: try pgData() + "/postmaster.pid", encoding: .utf8).split(separator: "\n")
        guard let first = lines.first, let postmaster = pid_t(first) else { throw Failure("no postmaster.pid") }
        let children = (try FileManager.default.contentsOfDirectory(atPath: "/proc")).compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == postmaster ? pid : nil
        }
        return [postmaster] + children
    }

    /// `SHUTDOWN NOSAVE`: every key (photos, limiter windows, caches) is gone when it comes back.
    public static func stopRedis() async throws {
        try await run("/usr/bin/redis-cli", ["-p", try redisPort(), "shutdown", "nosave"], allowFailure: true)
    }

    public static func startRedis() async throws {
        let dir = try TestEnvironment.require("STACK_DIR")
        try await run(
            "/usr/bin/redis-server",
            [
                "--bind", "127.0.0.1", "--port", try redisPort(), "--save", "", "--appendonly", "no", "--daemonize",
                "yes", "--pidfile", dir + "/redis.pid", "--logfile", dir + "/redis.log", "--dir", dir,
            ])
        for _ in 0..<100 {
            if (try? await run("/usr/bin/redis-cli", ["-p", try redisPort(), "ping"])) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure("redis did not come back")
    }

    private static func pgData() throws -> String {
        let dir = try TestEnvironment.require("STACK_DIR")
        let pgDir = try String(contentsOfFile: dir + "/pg.dir", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        return pgDir + "/data"
    }

    private static func redisPort() throws -> String {
        let url = try TestEnvironment.require("REDIS_URL")
        guard let port = url.split(separator: ":").last.map(String.init), Int(port) != nil else {
            throw Failure("REDIS_URL has no port: run the tests through scripts/test.sh")
        }
        return port
    }

    /// Runs a command to completion on its own thread (posix_spawn + waitpid: Foundation's `Process` can miss the
    /// exit of a child that daemonizes, as `pg_ctl start` does), output discarded.
    @discardableResult
    private static func run(_ path: String, _ arguments: [String], allowFailure: Bool = false) async throws -> Int32 {
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let argv = ([path] + arguments).map { strdup($0) } + [nil]
                defer { argv.forEach { free($0) } }
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                var pid: pid_t = 0
                let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
                guard spawned == 0 else {
                    continuation.resume(throwing: Failure("\(path): posix_spawn failed (\(spawned))"))
                    return
                }
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, which Swift does not import.
                continuation.resume(returning: raw & 0x7f == 0 ? (raw >> 8) & 0xff : -1)
            }
        }
        if status != 0 && !allowFailure {
            throw Failure("\(path) \(arguments.joined(separator: " ")) exited \(status)")
        }
        return status
    }
}
