import CLibPQ
import Dispatch
import Foundation
import Runtime
import Synchronization
import Tracing

/// Owns one `PGconn` and its `PGcancel`. Used only on the owning connection's serial queue; `deinit` runs when
/// nothing else holds it. `PQcancel` on `cancel` is thread-safe by libpq's contract and runs on other threads.
final class PGHandle: @unchecked Sendable {
    private(set) var raw: OpaquePointer?
    let cancel: OpaquePointer?
    /// The connection's socket, fixed for its lifetime (this module never calls `PQreset`).
    let socket: Int32

    init(raw: OpaquePointer) {
        self.raw = raw
        self.cancel = PQgetCancel(raw)
        self.socket = PQsocket(raw)
    }

    func finish() {
        if let raw {
            PQfinish(raw)
            self.raw = nil
        }
    }

    deinit {
        finish()
        if let cancel { PQfreeCancel(cancel) }
    }
}

/// One Postgres session. Only handed out inside pool closures; do not keep it past the closure.
/// Every libpq call runs on the connection's own serial dispatch queue, never on the cooperative pool. Concurrent
/// calls on one connection are serialized. Cancelling the calling task sends a cancel request for the running
/// statement.
public final class PostgresConnection: Sendable {
    enum SessionState: UInt8 {
        case idle = 0
        case inTransaction = 1
        case broken = 2
    }

    private struct CancelState {
        var running: UInt64?
        var cancelled: UInt64?
    }

    private struct Outcome: Sendable {
        var rows: [PostgresRow] = []
        var affected = 0
        var commandStatus = ""
    }

    private let handle: PGHandle
    private let queue: DispatchQueue
    private let session = Atomic<UInt8>(SessionState.idle.rawValue)
    private let cancelState = Mutex(CancelState())
    private let nextOperation = Atomic<UInt64>(0)

    private static let queriesOK = MetricsRegistry.shared.counter(
        MetricNames.postgresQueries, help: "Postgres statements run, by result.", labels: ["result": "ok"])
    private static let queriesFailed = MetricsRegistry.shared.counter(
        MetricNames.postgresQueries, help: "Postgres statements run, by result.", labels: ["result": "error"])

    private init(handle: PGHandle, queue: DispatchQueue) {
        self.handle = handle
        self.queue = queue
    }

    /// Opens a session (blocking connect on a new serial queue). `connectTimeout` applies unless the URL sets
    /// `connect_timeout`; TCP keepalives notice a dead peer within about a minute unless the URL sets `keepalives_*`.
    /// The session uses UTF-8 and `DateStyle=ISO`.
    static func make(url: String, connectTimeout: Duration) async throws -> PostgresConnection {
        let queue = DispatchQueue(label: "mapvest.postgres.connection")
        let seconds = max(2, connectTimeout.components.seconds + (connectTimeout.components.attoseconds > 0 ? 1 : 0))
        let handle: PGHandle = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try openHandle(url: url, connectTimeoutSeconds: seconds) })
            }
        }
        return PostgresConnection(handle: handle, queue: queue)
    }

    private static func openHandle(url: String, connectTimeoutSeconds: Int64) throws -> PGHandle {
        // Later keywords win: the URL may override the timeouts and application name, never the encoding.
        let keywords = [
            "connect_timeout", "keepalives_idle", "keepalives_interval", "keepalives_count",
            "fallback_application_name", "dbname", "client_encoding",
        ]
        let values = [String(connectTimeoutSeconds), "30", "10", "3", ProcessInfo.processInfo.processName, url, "UTF8"]
        let copies = (keywords + values).map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } }
        let keywordList = Array(pointers[..<keywords.count]) + [nil]
        let valueList = Array(pointers[keywords.count...]) + [nil]
        let conn = PQconnectdbParams(keywordList, valueList, 1)
        guard let conn else { throw PostgresError(code: .connectionFailed, message: "out of memory") }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(conn)
            throw PostgresError(code: .connectionFailed, message: message)
        }
        // libpq prints notices (and errors that arrive while idle) to stderr by default, which would break the
        // JSON log lines and could leak values: drop them.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        let handle = PGHandle(raw: conn)
        let dateStyle = PQparameterStatus(conn, "DateStyle").map { String(cString: $0) } ?? ""
        if !dateStyle.hasPrefix("ISO") {
            _ = try handleResult(conn, PQexec(conn, "SET DateStyle TO ISO"))
        }
        return handle
    }

    // MARK: Public API

    /// Runs one statement with its binds (`PQexecParams`) and returns its rows.
    public func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await run(query, cancellable: true).rows
    }

    /// Runs one statement with its binds and returns the number of rows it affected (0 when not applicable).
    @discardableResult
    public func execute(_ query: PostgresQuery) async throws -> Int {
        try await run(query, cancellable: true).affected
    }

    /// Runs code-owned SQL that may hold several statements (`PQexec`), for migrations and DDL. No binds.
    public func simpleQuery(_ sql: String) async throws {
        _ = try await runSimple(sql, cancellable: true)
    }

    // MARK: Internal

    /// Runs code-owned SQL without honouring task cancellation (cleanup statements); returns the command status.
    func command(_ sql: String) async throws -> String {
        try await runSimple(sql, cancellable: false).commandStatus
    }

    var sessionState: SessionState {
        SessionState(rawValue: session.load(ordering: .acquiring)) ?? .broken
    }

    /// Whether an idle connection is still fine: its socket is quiet (a non-blocking poll), or whatever arrived
    /// (a notice, a parameter change) leaves it healthy once consumed on its queue. A terminated backend sends an
    /// error and then EOF, which libpq only sees on a later read, hence the loop.
    func isUsableWhenIdle() async -> Bool {
        guard sessionState == .idle else { return false }
        if !Self.readable(handle.socket) { return true }
        let handle = self.handle
        let usable: Bool? = try? await onQueue { raw in
            for _ in 0..<4 {
                guard PQconsumeInput(raw) != 0, PQstatus(raw) == CONNECTION_OK else { return false }
                if !Self.readable(handle.socket) { return PQtransactionStatus(raw) == PQTRANS_IDLE }
            }
            return false
        }
        return usable ?? false
    }

    /// A zero-timeout poll: never blocks.
    private static func readable(_ socket: Int32) -> Bool {
        var pfd = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) != 0
    }

    /// Closes the session on its queue.
    func close() async {
        session.store(SessionState.broken.rawValue, ordering: .releasing)
        let handle = self.handle
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                handle.finish()
                continuation.resume()
            }
        }
    }

    private func run(_ query: PostgresQuery, cancellable: Bool) async throws -> Outcome {
        let sql = query.sql
        let binds = query.binds
        return try await Tracing.withChildSpan(
            PostgresTracing.statementName(sql), attributes: PostgresTracing.attributes(sql)
        ) { _ in
            try await perform(cancellable: cancellable) { raw in try Self.execParams(raw, sql: sql, binds: binds) }
        }
    }

    private func runSimple(_ sql: String, cancellable: Bool) async throws -> Outcome {
        try await perform(cancellable: cancellable) { raw in
            guard !sql.utf8.contains(0) else {
                throw PostgresError(code: .invalidArgument, message: "SQL contains a NUL byte")
            }
            return try Self.handleResult(raw, PQexec(raw, sql))
        }
    }

    /// Runs `work` on the queue; while it runs, cancelling the task sends a cancel request to the server.
    private func perform<T: Sendable>(
        cancellable: Bool, _ work: @escaping @Sendable (OpaquePointer) throws -> T
    ) async throws -> T {
        let operation = nextOperation.add(1, ordering: .relaxed).newValue
        do {
            let result: T
            if cancellable {
                result = try await withTaskCancellationHandler {
                    try await onQueue(operation: operation, work)
                } onCancel: {
                    requestCancel(operation)
                }
            } else {
                result = try await onQueue(operation: nil, work)
            }
            Self.queriesOK.increment()
            return result
        } catch {
            Self.queriesFailed.increment()
            throw error
        }
    }

    private func onQueue<T: Sendable>(
        operation: UInt64? = nil, _ work: @escaping @Sendable (OpaquePointer) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                continuation.resume(with: Result { try runOnQueue(operation: operation, work) })
            }
        }
    }

    private func runOnQueue<T>(operation: UInt64?, _ work: (OpaquePointer) throws -> T) throws -> T {
        guard let raw = handle.raw else {
            throw PostgresError(code: .connectionClosed, message: "connection is closed")
        }
        if let operation {
            let cancelled = cancelState.withLock { state -> Bool in
                if state.cancelled == operation { return true }
                state.running = operation
                return false
            }
            if cancelled { throw CancellationError() }
        }
        defer {
            if operation != nil { cancelState.withLock { $0.running = nil } }
            let state: SessionState
            if session.load(ordering: .relaxed) == SessionState.broken.rawValue || PQstatus(raw) != CONNECTION_OK {
                state = .broken
            } else {
                switch PQtransactionStatus(raw) {
                case PQTRANS_IDLE: state = .idle
                case PQTRANS_INTRANS, PQTRANS_INERROR: state = .inTransaction
                default: state = .broken
                }
            }
            session.store(state.rawValue, ordering: .releasing)
        }
        return try work(raw)
    }

    /// Sends a cancel request if `operation` is still running (from a global queue: `PQcancel` blocks briefly).
    /// The lock is held while sending, so the connection cannot move on to a later statement that would be hit instead.
    private func requestCancel(_ operation: UInt64) {
        let running = cancelState.withLock { state -> Bool in
            if state.running == operation { return true }
            state.cancelled = operation
            return false
        }
        guard running else { return }
        DispatchQueue.global().async { [self] in
            cancelState.withLock { state in
                guard state.running == operation, let cancel = handle.cancel else { return }
                var buffer = [CChar](repeating: 0, count: 256)
                _ = PQcancel(cancel, &buffer, Int32(buffer.count))
            }
        }
    }

    private static func execParams(_ raw: OpaquePointer, sql: String, binds: [PostgresBind]) throws -> Outcome {
        guard !sql.utf8.contains(0) else {
            throw PostgresError(code: .invalidArgument, message: "SQL contains a NUL byte")
        }
        var types: [UInt32] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var values: [UnsafeMutablePointer<CChar>?] = []
        types.reserveCapacity(binds.count)
        defer { values.forEach { $0?.deallocate() } }
        for (index, bind) in binds.enumerated() {
            types.append(bind.typeOID)
            switch bind.value {
            case .null:
                values.append(nil)
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                let utf8 = Array(text.utf8)
                guard !utf8.contains(0) else {
                    throw PostgresError(code: .invalidArgument, message: "parameter $\(index + 1) contains a NUL byte")
                }
                values.append(copyBytes(utf8, terminated: true))
                lengths.append(Int32(utf8.count))
                formats.append(0)
            case .binary(let bytes):
                guard bytes.count <= Int32.max else {
                    throw PostgresError(code: .invalidArgument, message: "parameter $\(index + 1) is too large")
                }
                values.append(copyBytes(bytes, terminated: false))
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        let constValues = values.map { $0.map { UnsafePointer($0) } }
        let result = PQexecParams(raw, sql, Int32(binds.count), types, constValues, lengths, formats, 0)
        return try handleResult(raw, result)
    }

    private static func copyBytes(_ bytes: [UInt8], terminated: Bool) -> UnsafeMutablePointer<CChar> {
        let count = bytes.count + (terminated ? 1 : 0)
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, count))
        bytes.withUnsafeBytes { source in
            guard let base = source.baseAddress else { return }
            UnsafeMutableRawPointer(pointer).copyMemory(from: base, byteCount: bytes.count)
        }
        if terminated { pointer[bytes.count] = 0 }
        return pointer
    }

    private static func handleResult(_ raw: OpaquePointer, _ result: OpaquePointer?) throws -> Outcome {
        guard let result else {
            let message = String(cString: PQerrorMessage(raw)).trimmingCharacters(in: .whitespacesAndNewlines)
            let code: PostgresError.Code = PQstatus(raw) == CONNECTION_OK ? .unexpectedResult : .connectionClosed
            throw PostgresError(code: code, message: message)
        }
        defer { PQclear(result) }
        var outcome = Outcome()
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK:
            let rowCount = PQntuples(result)
            let fieldCount = PQnfields(result)
            let columns = PostgresColumns(
                names: (0..<fieldCount).map { PQfname(result, $0).map { String(cString: $0) } ?? "" })
            outcome.rows.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount {
                var values: [String?] = []
                values.reserveCapacity(Int(fieldCount))
                for field in 0..<fieldCount {
                    if PQgetisnull(result, row, field) != 0 {
                        values.append(nil)
                    } else {
                        values.append(PQgetvalue(result, row, field).map { String(cString: $0) } ?? "")
                    }
                }
                outcome.rows.append(PostgresRow(columns: columns, values: values))
            }
            outcome.affected = Int(rowCount)
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            break
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR, PGRES_BAD_RESPONSE:
            throw error(from: result, raw)
        default:
            // COPY and other streaming states leave the session mid-protocol (transaction status ACTIVE), so the
            // connection is marked broken and discarded by its pool.
            throw PostgresError(code: .unexpectedResult, message: "unsupported result status (COPY is not supported)")
        }
        outcome.commandStatus = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        if let tuples = PQcmdTuples(result), let affected = Int(String(cString: tuples)) {
            outcome.affected = affected
        }
        return outcome
    }

    private static func error(from result: OpaquePointer, _ raw: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field("C")
        let broken = PQstatus(raw) != CONNECTION_OK
        var message = field("M")
        if message == nil {
            message = String(cString: PQerrorMessage(raw)).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let code: PostgresError.Code = broken ? .connectionClosed : (sqlState == nil ? .unexpectedResult : .server)
        return PostgresError(
            code: code, sqlState: sqlState, constraintName: field("n"), message: message, detail: field("D"),
            hint: field("H"))
    }
}
