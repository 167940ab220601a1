import CMicroHTTPD
import Runtime
import Synchronization

/// One request's state, from the URI callback to `MHD_OPTION_NOTIFY_COMPLETED`.
///
/// `phase`, `head`, `body` and the counters are touched only by the access handler, which MHD runs on the
/// connection's own polling thread (never concurrently for one connection). `handoff` is what the request's
/// task and that thread share.
final class RequestContext: @unchecked Sendable {
    enum Phase {
        case new  // URI seen, headers not yet handed to us
        case awaitingFinal  // no body: waiting for MHD's final call
        case deciding  // suspended in `head()`; the body is unread
        case readingBody
        case discarding  // chunked body passed the limit: reading and dropping the rest
        case handling  // suspended in `handle()`
        case done  // response queued
    }

    /// What a task hands back when it resumes the connection.
    enum Outcome {
        case decision(HeadDecision)
        case response(HTTPResponse)
    }

    struct Handoff {
        var suspended = false
        var outcome: Outcome?
        var task: Task<Void, Never>?
    }

    let rawURI: String
    /// Why the target is refused (`RequestHeadCheck`), found before MHD parses it.
    let targetProblem: String?
    let connection: OpaquePointer
    let start = ContinuousClock.now

    var phase = Phase.new
    var head: HTTPRequestHead?
    var body: [UInt8] = []
    var limit = 0
    var received = 0
    var tooLarge = HTTPResponse.empty(413)
    var state: (any Sendable)?

    let handoff = Mutex(Handoff())

    init(rawURI: String, targetProblem: String?, connection: OpaquePointer) {
        self.rawURI = rawURI
        self.targetProblem = targetProblem
        self.connection = connection
    }

    func takeOutcome() -> Outcome? {
        handoff.withLock { h in
            defer { h.outcome = nil }
            return h.outcome
        }
    }
}

/// Everything the C callbacks of one daemon need: the handler, metrics and the suspended requests.
/// Passed to libmicrohttpd unretained; `MHDDaemon` keeps it alive until the daemon has stopped.
final class ServerCore: Sendable {
    let handler: any HTTPHandler
    let logger: Logger
    let oversizeDiscardLimit: Int
    /// Requests between the URI callback and completion.
    let activeRequests = Atomic<Int>(0)
    /// Requests seen since start (the drain waits until this stops moving).
    let requestsStarted = Atomic<Int>(0)
    /// Once set, every response carries `Connection: close`.
    let draining = Atomic<Bool>(false)

    private struct Suspended {
        var contexts: [ObjectIdentifier: RequestContext] = [:]
        var forcing = false
        /// Streaming bodies being sent; finished on shutdown so no connection stays suspended.
        var streams: [ObjectIdentifier: HTTPBodyStream] = [:]
    }
    private let suspended = Mutex(Suspended())
    /// 2xx, 3xx, 4xx, 5xx.
    private let statusCounters: [Counter]
    private let duration: Histogram

    init(handler: any HTTPHandler, logger: Logger, metrics: MetricsRegistry, oversizeDiscardLimit: Int) {
        self.handler = handler
        self.logger = logger
        self.oversizeDiscardLimit = oversizeDiscardLimit
        let help = "HTTP responses sent, by status class."
        self.statusCounters = ["2xx", "3xx", "4xx", "5xx"].map {
            metrics.counter("http_requests_total", help: help, labels: ["status_class": $0])
        }
        self.duration = metrics.histogram(
            "http_request_duration_seconds", help: "Time from request line to queued response.")
    }

    static let shutdownResponse = HTTPResponse.error(503, "server shutting down")

    // MARK: Access handler state machine

    func access(
        _ ctx: RequestContext, method: String, version: String, uploadData: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        let size = uploadSize.pointee
        switch ctx.phase {
        case .new:
            let (head, headersClean) = makeHead(ctx, method: method, version: version)
            ctx.head = head
            if let problem = ctx.targetProblem ?? (headersClean ? nil : RequestHeadCheck.badHeader) {
                return queue(ctx, .error(400, problem), close: true)
            }
            let chunked = head.headers["Transfer-Encoding"].map { $0.lowercased().contains("chunked") } ?? false
            let declaresBody = head.headers["Content-Length"] != nil && head.contentLength != 0
            if chunked || declaresBody {
                // Decide before MHD reads (or answers `Expect: 100-continue` for) any body byte.
                ctx.phase = .deciding
                let handler = self.handler
                suspend(ctx) { .decision(await handler.head(head)) }
            } else {
                ctx.phase = .awaitingFinal
            }
            return .YES

        case .awaitingFinal:
            if size > 0 {
                uploadSize.pointee = 0  // cannot happen without a declared body; drop it
                return .YES
            }
            guard let head = ctx.head else { return .NO }
            if let response = handler.immediate(head) { return queue(ctx, response, close: false) }
            ctx.phase = .handling
            let handler = self.handler
            suspend(ctx) {
                switch await handler.head(head) {
                case .respond(let response):
                    return .response(response)
                case .readBody(_, _, let state):
                    return .response(await handler.handle(HTTPRequest(head: head, body: [], state: state)))
                }
            }
            return .YES

        case .deciding:
            // Resumed after `head()`; MHD is still before the body (headers processed).
            guard let outcome = ctx.takeOutcome() else { return .YES }
            switch outcome {
            case .response(let response):
                return queue(ctx, response, close: true)
            case .decision(.respond(let response)):
                return queue(ctx, response, close: true)
            case .decision(.readBody(let limit, let tooLarge, let state)):
                if let declared = ctx.head?.contentLength, declared > limit {
                    return queue(ctx, tooLarge, close: true)
                }
                ctx.limit = max(0, limit)
                ctx.tooLarge = tooLarge
                ctx.state = state
                ctx.body.reserveCapacity(min(ctx.head?.contentLength ?? 0, ctx.limit, 1 << 20))
                ctx.phase = .readingBody
                return .YES
            }

        case .readingBody:
            if size > 0 {
                let (total, overflow) = ctx.received.addingReportingOverflow(size)
                if overflow || total > ctx.limit {
                    ctx.body = []
                    ctx.received = overflow ? Int.max : total - ctx.limit
                    ctx.phase = .discarding
                } else if let uploadData {
                    ctx.received = total
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { p in
                        ctx.body.append(contentsOf: UnsafeBufferPointer(start: p, count: size))
                    }
                }
                uploadSize.pointee = 0
                return .YES
            }
            guard let head = ctx.head else { return .NO }
            let request = HTTPRequest(head: head, body: ctx.body, state: ctx.state)
            ctx.body = []
            ctx.state = nil
            ctx.phase = .handling
            let handler = self.handler
            suspend(ctx) { .response(await handler.handle(request)) }
            return .YES

        case .discarding:
            if size > 0 {
                let (total, overflow) = ctx.received.addingReportingOverflow(size)
                if overflow || total > oversizeDiscardLimit {
                    // Never the path in logs: it may hold token ids.
                    logger.debug("oversized upload aborted", ["http.method": .string(ctx.head?.method ?? "")])
                    return .NO  // closes the connection without an answer
                }
                ctx.received = total
                uploadSize.pointee = 0
                return .YES
            }
            return queue(ctx, ctx.tooLarge, close: true)

        case .handling:
            guard let outcome = ctx.takeOutcome() else { return .YES }
            switch outcome {
            case .response(let response):
                return queue(ctx, response, close: false)
            case .decision:
                return queue(ctx, .error(500, "internal error"), close: true)
            }

        case .done:
            return .YES
        }
    }

    /// The head, and whether every header value was clean UTF-8.
    private func makeHead(_ ctx: RequestContext, method: String, version: String) -> (HTTPRequestHead, Bool) {
        var collected = CollectedHeaders()
        withUnsafeMutablePointer(to: &collected) { p in
            _ = MHD_get_connection_values(ctx.connection, .HEADER_KIND, collectHeader, p)
        }
        let headers = HTTPHeaders(collected.pairs)
        var address = [CChar](repeating: 0, count: 64)
        var remote = ""
        if mapvest_mhd_client_address(ctx.connection, &address, socklen_t(address.count)) == 0 {
            remote = String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let target = ctx.rawURI
        let path: String
        let rawQuery: String?
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            rawQuery = String(target[target.index(after: q)...])
        } else {
            path = target
            rawQuery = nil
        }
        let contentLength = headers["Content-Length"].flatMap { Int($0.trimmingASCIISpaces()) }
        let head = HTTPRequestHead(
            method: method, path: path, rawQuery: rawQuery, query: rawQuery.map { QueryString.parse(Substring($0)) } ?? [:],
            headers: headers, remoteAddress: remote, contentLength: contentLength, version: version)
        return (head, collected.clean)
    }

    // MARK: Suspend / resume

    /// Suspends the connection and runs `work` as a task; its outcome resumes the connection.
    private func suspend(_ ctx: RequestContext, _ work: @escaping @Sendable () async -> RequestContext.Outcome) {
        MHD_suspend_connection(ctx.connection)
        ctx.handoff.withLock { h in
            h.suspended = true
            h.outcome = nil
        }
        let forcing = suspended.withLock { s -> Bool in
            if s.forcing { return true }
            s.contexts[ObjectIdentifier(ctx)] = ctx
            return false
        }
        if forcing {
            complete(ctx, .response(Self.shutdownResponse))
            return
        }
        let task = Task { [self] in
            let outcome = await work()
            self.complete(ctx, outcome)
        }
        ctx.handoff.withLock { h in
            if h.suspended { h.task = task }
        }
    }

    /// Hands `outcome` to the connection and resumes it, unless someone else already did (exactly once).
    private func complete(_ ctx: RequestContext, _ outcome: RequestContext.Outcome) {
        let resume = ctx.handoff.withLock { h -> Bool in
            guard h.suspended else { return false }
            h.suspended = false
            h.outcome = outcome
            h.task = nil
            return true
        }
        guard resume else { return }
        _ = suspended.withLock { $0.contexts.removeValue(forKey: ObjectIdentifier(ctx)) }
        MHD_resume_connection(ctx.connection)
    }

    /// Answers every suspended request 503 (cancelling its task) and every later one at once;
    /// `MHD_stop_daemon` must never see a suspended connection.
    func forceResumeAll() {
        let contexts = suspended.withLock { s -> [RequestContext] in
            s.forcing = true
            return Array(s.contexts.values)
        }
        for ctx in contexts {
            // Answer first, then cancel: a cancelled handler that returns at once must not beat the 503.
            let task = ctx.handoff.withLock { $0.task }
            complete(ctx, .response(Self.shutdownResponse))
            task?.cancel()
        }
        for stream in suspended.withLock({ Array($0.streams.values) }) { stream.finish() }
    }

    // MARK: Responses

    private func queue(_ ctx: RequestContext, _ response: HTTPResponse, close: Bool) -> MHD_Result {
        ctx.phase = .done
        // A final response: 1xx and out-of-range statuses are handler bugs.
        let status = (200...599).contains(response.status) ? response.status : 500
        let made = response.stream.map { stream in MHDResponse(stream: stream) } ?? MHDResponse(body: response.body)
        guard let mhdResponse = made else { return .NO }
        if let stream = response.stream {
            let id = ObjectIdentifier(stream)
            let forcing = suspended.withLock { s -> Bool in
                s.streams[id] = stream
                return s.forcing
            }
            stream.attach(ctx.connection) { [weak self] in _ = self?.suspended.withLock { $0.streams.removeValue(forKey: id) } }
            if forcing { stream.finish() }
        }
        let closing = close || draining.load(ordering: .relaxed)
        for (name, value) in response.headers {
            if HeaderName.equal(name, "Content-Length") || HeaderName.equal(name, "Transfer-Encoding") { continue }
            if closing && HeaderName.equal(name, "Connection") { continue }
            guard Self.isValidHeader(name, value) else {
                logger.warning("invalid response header dropped", ["http.header": .string(name)])
                continue
            }
            mhdResponse.add(name, value)
        }
        if closing { mhdResponse.add("Connection", "close") }
        let result = MHD_queue_response(ctx.connection, UInt32(status), mhdResponse.raw)
        statusCounters[status / 100 - 2].increment()
        duration.observe(since: ctx.start)
        return result
    }

    private static func isValidHeader(_ name: String, _ value: String) -> Bool {
        guard !name.isEmpty else { return false }
        for c in name.utf8 where c <= 32 || c >= 127 || c == UInt8(ascii: ":") { return false }
        for c in value.utf8 where c == 13 || c == 10 || c == 0 { return false }
        return true
    }
}

/// Owns one `MHD_Response`. Queueing takes MHD's own reference, so this one is released right after.
final class MHDResponse {
    let raw: OpaquePointer

    /// Copies `body` (`MHD_RESPMEM_MUST_COPY`); nil when MHD cannot allocate.
    init?(body: [UInt8]) {
        let created = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        raw = created
    }

    /// A chunked response read from `stream` (which MHD holds retained until it destroys the response).
    init?(stream: HTTPBodyStream) {
        let retained = Unmanaged.passRetained(stream)
        guard
            let created = MHD_create_response_from_callback(
                UInt64.max, 4096, streamReaderCallback, retained.toOpaque(), streamFreeCallback)
        else {
            retained.release()
            return nil
        }
        raw = created
    }

    func add(_ name: String, _ value: String) { _ = MHD_add_response_header(raw, name, value) }

    deinit { MHD_destroy_response(raw) }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    public func trimmingASCIISpaces() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}

/// Header fields as MHD parsed them; `clean` turns false at the first name or value that is not valid UTF-8.
private struct CollectedHeaders {
    var pairs: [(String, String)] = []
    var clean = true
}

/// `MHD_KeyValueIterator` appending to the `CollectedHeaders` behind `cls`.
private let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let collected = cls.assumingMemoryBound(to: CollectedHeaders.self)
    guard let name = String(validatingCString: key), let text = value.map({ String(validatingCString: $0) }) ?? ""
    else {
        collected.pointee.clean = false
        return .YES
    }
    collected.pointee.pairs.append((name, text))
    return .YES
}

// MARK: - C callbacks (cls is the unretained ServerCore)

let accessHandlerCallback: MHD_AccessHandlerCallback = {
    cls, _, _, method, version, uploadData, uploadDataSize, conCls in
    guard let cls, let conCls, let raw = conCls.pointee, let uploadDataSize else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
    return core.access(
        ctx, method: method.map { String(cString: $0) } ?? "", version: version.map { String(cString: $0) } ?? "",
        uploadData: uploadData, uploadSize: uploadDataSize)
}

/// Creates the request's context before MHD parses the target (so the raw path and query survive), checks the
/// target (`RequestHeadCheck`), and then hides the query from MHD: the server parses queries itself, and MHD's own
/// argument parsing stores every field in the connection's fixed memory pool — a few thousand `a=1` fields exhaust
/// it, and MHD then neither answers nor closes until the idle timeout. MHD reads the query from this same buffer
/// right after the callback returns, so ending it just after the `?` leaves MHD an empty query.
let uriLogCallback: mapvest_mhd_uri_log_callback = { cls, uri, connection in
    guard let cls, let connection else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    var rawURI = "/"
    var problem: String?
    if let uri {
        var length = 0
        while uri[length] != 0 { length += 1 }
        // CChar and UInt8 may alias: the same bytes, read unsigned.
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(uri).assumingMemoryBound(to: UInt8.self), count: length)
        problem = RequestHeadCheck.problem(target: Array(bytes))
        rawURI = String(decoding: bytes, as: UTF8.self)
        if let mark = bytes.firstIndex(of: UInt8(ascii: "?")), mark + 1 < length {
            UnsafeMutablePointer(mutating: uri)[mark + 1] = 0
        }
    }
    let ctx = RequestContext(rawURI: rawURI, targetProblem: problem, connection: connection)
    core.activeRequests.add(1, ordering: .relaxed)
    core.requestsStarted.add(1, ordering: .relaxed)
    return Unmanaged.passRetained(ctx).toOpaque()
}

let requestCompletedCallback: MHD_RequestCompletedCallback = { cls, _, conCls, _ in
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    conCls.pointee = nil
    Unmanaged<RequestContext>.fromOpaque(raw).release()
    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().activeRequests.subtract(1, ordering: .relaxed)
}
