import CMicroHTTPD
import Runtime
import Synchronization

/// One request's state, from the URI callback to `MHD_OPTION_NOTIFY_COMPLETED`.
///
/// `lifecycle` is touched only by the access handler, which MHD runs on the connection's own polling thread (never
/// concurrently for one connection). `handoff` is what the request's task and that thread share.
final class RequestContext: @unchecked Sendable {
    struct Handoff {
        var suspended = false
        var outcome: Lifecycle.Outcome?
        var task: Task<Void, Never>?
    }

    let rawURI: String
    /// Why the target is refused (`RequestHeadCheck`), found before MHD parses it.
    let targetProblem: String?
    let connection: OpaquePointer
    let start = ContinuousClock.now

    var lifecycle: Lifecycle

    let handoff = Mutex(Handoff())

    init(
        rawURI: String, targetProblem: String?, connection: OpaquePointer, discardLimit: Int, smallBodyLimit: Int
    ) {
        self.rawURI = rawURI
        self.targetProblem = targetProblem
        self.connection = connection
        self.lifecycle = Lifecycle(discardLimit: discardLimit, smallBodyLimit: smallBodyLimit)
    }

    func takeOutcome() -> Lifecycle.Outcome? {
        handoff.withLock { h in
            defer { h.outcome = nil }
            return h.outcome
        }
    }
}

/// Everything the C callbacks of one daemon need: the handler, metrics and the suspended requests.
/// Passed to libmicrohttpd unretained; `MHDDaemon` keeps it alive until the daemon has stopped.
final class ServerCore: Sendable {
    let handler: ErasedHandler
    let logger: Logger
    let oversizeDiscardLimit: Int
    /// `HTTPServerConfiguration.smallBodyLimit`.
    let smallBodyLimit: Int
    /// Requests between the URI callback and completion.
    let activeRequests = Atomic<Int>(0)
    /// Requests seen since start (the drain waits until this stops moving).
    let requestsStarted = Atomic<Int>(0)
    /// Once set, every response carries `Connection: close`.
    let draining = Atomic<Bool>(false)
    /// The total deadline of each request head.
    let headDeadline: HeadDeadline

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

    init(
        handler: ErasedHandler, logger: Logger, metrics: MetricsRegistry, oversizeDiscardLimit: Int,
        smallBodyLimit: Int, headDeadline: HeadDeadline
    ) {
        self.handler = handler
        self.headDeadline = headDeadline
        self.logger = logger
        self.oversizeDiscardLimit = oversizeDiscardLimit
        self.smallBodyLimit = smallBodyLimit
        let help = "HTTP responses sent, by status class."
        self.statusCounters = ["2xx", "3xx", "4xx", "5xx"].map {
            metrics.counter("http_requests_total", help: help, labels: ["status_class": $0])
        }
        self.duration = metrics.histogram(
            "http_request_duration_seconds", help: "Time from request line to queued response.")
    }

    static let shutdownResponse = HTTPResponse.error(503, "server shutting down")

    // MARK: Access handler: performs `RequestLifecycle`'s actions

    /// `headerValueCut` is true when a NUL cut a header value short (`mapvest_mhd_header_value_cut`).
    func access(
        _ ctx: RequestContext, method: String, version: String, headerValueCut: Bool,
        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        var action: Lifecycle.Action
        if ctx.lifecycle.phase == .new {
            headDeadline.headComplete(ctx.connection)
            let (head, headersClean) = makeHead(ctx, method: method, version: version)
            action = ctx.lifecycle.headersArrived(
                head, targetProblem: ctx.targetProblem, headersClean: headersClean && !headerValueCut)
        } else {
            let outcome = ctx.lifecycle.awaitsOutcome ? ctx.takeOutcome() : nil
            let upload = UnsafeRawBufferPointer(start: uploadData, count: uploadData == nil ? 0 : uploadSize.pointee)
            action = ctx.lifecycle.call(upload: upload, outcome: outcome)
        }
        if case .tryImmediate(let head) = action { action = ctx.lifecycle.immediate(handler.immediate(head)) }
        switch action {
        case .proceed, .tryImmediate:
            return .YES
        case .consume:
            uploadSize.pointee = 0
            return .YES
        case .suspend(let work):
            suspend(ctx, work)
            return .YES
        case .respond(let response, let close):
            return queue(ctx, response, close: close)
        case .abort(let reason):
            // Never the path in logs: it may hold token ids.
            if reason == .oversizedUpload {
                logger.debug(
                    "oversized upload aborted", [LogKeys.httpMethod: .string(ctx.lifecycle.head?.method ?? "")])
            }
            return .NO  // closes the connection without an answer
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
            method: method, path: path, rawQuery: rawQuery,
            query: rawQuery.map { QueryString.parse(Substring($0)) } ?? [:],
            headers: headers, remoteAddress: remote, contentLength: contentLength, version: version)
        return (head, collected.clean)
    }

    // MARK: Suspend / resume

    /// Suspends the connection and runs `work` as a task; its outcome resumes the connection.
    private func suspend(_ ctx: RequestContext, _ work: Lifecycle.Work) {
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
        let handler = self.handler
        let task = Task { [self] in
            let outcome: Lifecycle.Outcome
            switch work {
            case .decide(let head):
                outcome = .decision(await handler.head(head))
            case .headThenHandle(let head):
                switch await handler.head(head) {
                case .respond(let response):
                    outcome = .response(response)
                case .readBody(_, _, let handle):
                    outcome = .response(await handle(HTTPRequest(head: head, body: [])))
                }
            case .handle(let request, let handle):
                outcome = .response(await handle(request))
            case .decideThenHandle(let request):
                switch Lifecycle.admit(request, by: await handler.head(request.head)) {
                case .success(let handle):
                    outcome = .response(await handle(request))
                case .failure(let refusal):
                    outcome = .decision(.respond(refusal))
                }
            }
            self.complete(ctx, outcome)
        }
        ctx.handoff.withLock { h in
            if h.suspended { h.task = task }
        }
    }

    /// Hands `outcome` to the connection and resumes it, unless someone else already did (exactly once).
    private func complete(_ ctx: RequestContext, _ outcome: Lifecycle.Outcome) {
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
        let made = response.stream.map { stream in MHDResponse(stream: stream) } ?? MHDResponse(body: response.body)
        guard let mhdResponse = made else { return .NO }
        if let stream = response.stream {
            let id = ObjectIdentifier(stream)
            let forcing = suspended.withLock { s -> Bool in
                s.streams[id] = stream
                return s.forcing
            }
            stream.attach(ctx.connection) { [weak self] in
                _ = self?.suspended.withLock { $0.streams.removeValue(forKey: id) }
            }
            if forcing { stream.finish() }
        }
        let framing = ResponseFraming(response, closing: close || draining.load(ordering: .relaxed))
        for name in framing.invalid {
            logger.warning("invalid response header dropped", [LogKeys.httpHeader: .string(name)])
        }
        for header in framing.headers { mhdResponse.add(header.name, header.value) }
        let result = MHD_queue_response(ctx.connection, UInt32(framing.status), mhdResponse.raw)
        statusCounters[framing.status / 100 - 2].increment()
        duration.observe(since: ctx.start)
        return result
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
    cls, connection, _, method, version, uploadData, uploadDataSize, conCls in
    guard let cls, let connection, let conCls, let raw = conCls.pointee, let uploadDataSize else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
    // Only while the head is in the read buffer: the first call for the request.
    let cut = ctx.lifecycle.phase == .new && mapvest_mhd_header_value_cut(connection, method, version) == 1
    return core.access(
        ctx, method: method.map { String(cString: $0) } ?? "", version: version.map { String(cString: $0) } ?? "",
        headerValueCut: cut, uploadData: uploadData, uploadSize: uploadDataSize)
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
    let ctx = RequestContext(
        rawURI: rawURI, targetProblem: problem, connection: connection, discardLimit: core.oversizeDiscardLimit,
        smallBodyLimit: core.smallBodyLimit)
    core.activeRequests.add(1, ordering: .relaxed)
    core.requestsStarted.add(1, ordering: .relaxed)
    core.headDeadline.requestLine(connection)
    return Unmanaged.passRetained(ctx).toOpaque()
}

let requestCompletedCallback: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    conCls.pointee = nil
    Unmanaged<RequestContext>.fromOpaque(raw).release()
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    core.activeRequests.subtract(1, ordering: .relaxed)
    if let connection { core.headDeadline.requestDone(connection) }
}
