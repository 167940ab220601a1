/// One request's phases, as libmicrohttpd drives them through the access handler, as a pure state machine:
/// head received → head check (400) → decide in `head()` while the body is unread (suspended) → read the body up to
/// its limit (413 from `Content-Length` at once; a chunked body past the limit is read and dropped up to the discard
/// limit, then the connection is closed unanswered) → `handle()` (suspended) → answered. A small declared body
/// (`Content-Length` up to `smallBodyLimit`, no `Expect: 100-continue`) is read first instead, and one task then runs
/// `head()`, the limit check and `handle()`: one suspension instead of two. A request without a body is offered to
/// `immediate(_:)` first. Each event returns the action `ServerCore` performs (the C calls, the tasks);
/// unit-tested without a socket, like Kafka's `ConsumerLifecycle`.
///
/// `State` is what an admitting decision carries to `handle()` (the server binds it into the handler's call).
/// Owned by one `RequestContext` and touched only by MHD's polling thread for that connection.
package struct RequestLifecycle<State: Sendable>: Sendable {
    package enum Phase: Sendable, Equatable {
        /// URI seen, headers not yet handed over.
        case new
        /// No body: waiting for MHD's final call.
        case awaitingFinal
        /// Suspended in `head()`; the body is unread.
        case deciding
        case readingBody
        /// A small declared body, read before `head()` has decided (bounded by `smallBodyLimit`).
        case readingSmallBody
        /// A chunked body passed its limit: reading and dropping the rest.
        case discarding
        /// Suspended in `handle()`.
        case handling
        /// Suspended in one task: `head()`, then (unless it answered or the body is over its limit) `handle()`.
        case decidingAndHandling
        /// A response is queued (or the connection is being closed).
        case done
    }

    /// What a task hands back when it resumes the connection.
    package enum Outcome: Sendable {
        case decision(HeadDecision<State>)
        case response(HTTPResponse)
    }

    /// Work run as a task while the connection is suspended; its `Outcome` comes back through `call`.
    package enum Work: Sendable {
        /// `head()` before any body byte is read (MHD has not answered `Expect: 100-continue` yet).
        case decide(HTTPRequestHead)
        /// A request without a body: `head()`, then `handle()` with an empty body unless `head()` answered.
        case headThenHandle(HTTPRequestHead)
        /// `handle()` with the complete request and the state of the decision that admitted it.
        case handle(HTTPRequest, State)
        /// A request whose small body was read first: `head()`, then `admit(_:by:)`, then `handle()` unless refused.
        /// A refusal comes back as `.decision(.respond(_))` (answered with `Connection: close`, like a refusal before
        /// the body), `handle()`'s answer as `.response(_)`.
        case decideThenHandle(HTTPRequest)
    }

    package enum Action: Sendable {
        /// Return `MHD_YES`, leaving the upload counter as it is.
        case proceed
        /// The upload bytes were taken (set the counter to 0) and return `MHD_YES`.
        case consume
        /// Ask the handler's synchronous `immediate(_:)` and report its answer with `immediate(_:)`.
        case tryImmediate(HTTPRequestHead)
        /// Suspend the connection and run `work` as a task.
        case suspend(Work)
        /// Queue this final response; `close` asks for `Connection: close` (a body may be left unread).
        case respond(HTTPResponse, close: Bool)
        /// Return `MHD_NO`: MHD closes the connection without an answer.
        case abort(Abort)
    }

    package enum Abort: Sendable, Equatable {
        /// More than the discard limit of an oversized chunked body arrived.
        case oversizedUpload
        /// An event came in a phase that cannot take it (a bug; the connection is dropped).
        case unexpected
    }

    package private(set) var phase = Phase.new
    package private(set) var head: HTTPRequestHead?
    /// The body so far (while reading), bounded by `limit`.
    package private(set) var body: [UInt8] = []
    /// Bytes accepted while reading; bytes dropped past the limit while discarding.
    package private(set) var received = 0
    private var limit = 0
    private var tooLarge = HTTPResponse.empty(413)
    private var state: State?
    /// After a chunked body passes its limit, at most this many more bytes are dropped before aborting.
    private let discardLimit: Int
    /// A declared body of at most this many bytes is read before `head()` (`HTTPServerConfiguration.smallBodyLimit`);
    /// 0 decides every body before reading it.
    private let smallBodyLimit: Int

    package init(discardLimit: Int, smallBodyLimit: Int = 0) {
        self.discardLimit = discardLimit
        self.smallBodyLimit = smallBodyLimit
    }

    /// True while a task owns the request (in `head()`, `handle()` or both): a call then may carry its outcome.
    package var awaitsOutcome: Bool { phase == .deciding || phase == .handling || phase == .decidingAndHandling }

    /// The first call: the head is known. `targetProblem` is `RequestHeadCheck`'s verdict on the raw target;
    /// `headersClean` is false when a header name or value was not valid UTF-8.
    package mutating func headersArrived(
        _ head: HTTPRequestHead, targetProblem: String?, headersClean: Bool
    ) -> Action {
        guard phase == .new else { return .abort(.unexpected) }
        self.head = head
        if let problem = targetProblem ?? (headersClean ? nil : RequestHeadCheck.badHeader) {
            return respond(.error(400, problem), close: true)
        }
        let chunked = head.headers["Transfer-Encoding"].map { $0.lowercased().contains("chunked") } ?? false
        let declaresBody = head.headers["Content-Length"] != nil && head.contentLength != 0
        guard chunked || declaresBody else {
            phase = .awaitingFinal
            return .proceed
        }
        let expectsContinue = head.headers["Expect"].map { $0.lowercased().contains("100-continue") } ?? false
        if !chunked && !expectsContinue, let length = head.contentLength, length > 0, length <= smallBodyLimit {
            // Small enough to hold without a decision: read it now, decide and handle in one task afterwards.
            limit = length
            body.reserveCapacity(length)
            phase = .readingSmallBody
            return .proceed
        }
        // Decide before MHD reads (or answers `Expect: 100-continue` for) any body byte.
        phase = .deciding
        return .suspend(.decide(head))
    }

    /// Every later call: `upload` holds the bytes MHD passed (empty on the final call and on resumption);
    /// `outcome` is what the resuming task handed back (nil unless `awaitsOutcome`).
    package mutating func call<Bytes: Collection<UInt8>>(upload: Bytes, outcome: Outcome?) -> Action {
        switch phase {
        case .new:
            return .abort(.unexpected)

        case .awaitingFinal:
            if !upload.isEmpty { return .consume }  // cannot happen without a declared body; drop it
            guard let head else { return .abort(.unexpected) }
            return .tryImmediate(head)

        case .deciding:
            // Resumed after `head()`; MHD is still before the body (headers processed).
            guard let outcome else { return .proceed }
            switch outcome {
            case .response(let response), .decision(.respond(let response)):
                return respond(response, close: true)
            case .decision(.readBody(let limit, let tooLarge, let state)):
                if let declared = head?.contentLength, declared > limit { return respond(tooLarge, close: true) }
                self.limit = max(0, limit)
                self.tooLarge = tooLarge
                self.state = state
                body.reserveCapacity(min(head?.contentLength ?? 0, self.limit, 1 << 20))
                phase = .readingBody
                return .proceed
            }

        case .readingBody:
            if !upload.isEmpty {
                let (total, overflow) = received.addingReportingOverflow(upload.count)
                if overflow || total > limit {
                    body = []
                    received = overflow ? Int.max : total - limit
                    phase = .discarding
                } else {
                    received = total
                    body.append(contentsOf: upload)
                }
                return .consume
            }
            guard let head, let admitted = state else { return .abort(.unexpected) }
            let request = HTTPRequest(head: head, body: body)
            body = []
            state = nil
            phase = .handling
            return .suspend(.handle(request, admitted))

        case .readingSmallBody:
            if !upload.isEmpty {
                // MHD passes exactly the declared length; more would be a bug, never held.
                let (total, overflow) = received.addingReportingOverflow(upload.count)
                guard !overflow, total <= limit else {
                    phase = .done
                    body = []
                    return .abort(.unexpected)
                }
                received = total
                body.append(contentsOf: upload)
                return .consume
            }
            guard let head else { return .abort(.unexpected) }
            let request = HTTPRequest(head: head, body: body)
            body = []
            phase = .decidingAndHandling
            return .suspend(.decideThenHandle(request))

        case .decidingAndHandling:
            guard let outcome else { return .proceed }
            switch outcome {
            case .response(let response):
                return respond(response, close: false)
            case .decision(.respond(let refusal)):
                return respond(refusal, close: true)
            case .decision(.readBody):
                return respond(.error(500, "internal error"), close: true)
            }

        case .discarding:
            if !upload.isEmpty {
                let (total, overflow) = received.addingReportingOverflow(upload.count)
                if overflow || total > discardLimit {
                    phase = .done
                    return .abort(.oversizedUpload)
                }
                received = total
                return .consume
            }
            return respond(tooLarge, close: true)

        case .handling:
            guard let outcome else { return .proceed }
            switch outcome {
            case .response(let response):
                return respond(response, close: false)
            case .decision:
                return respond(.error(500, "internal error"), close: true)
            }

        case .done:
            return .proceed
        }
    }

    /// The answer of `immediate(_:)` after `.tryImmediate`: sent now, or (nil) the request goes through the tasks.
    package mutating func immediate(_ response: HTTPResponse?) -> Action {
        guard phase == .awaitingFinal, let head else { return .abort(.unexpected) }
        if let response { return respond(response, close: false) }
        phase = .handling
        return .suspend(.headThenHandle(head))
    }

    /// What `head()`'s `decision` makes of a request whose body was read before it decided: its own answer, the
    /// decision's `tooLarge` for a body over its limit, or the decision's state to `handle()` the request with.
    package static func admit(_ request: HTTPRequest, by decision: HeadDecision<State>) -> Result<State, HTTPResponse> {
        switch decision {
        case .respond(let response):
            return .failure(response)
        case .readBody(let limit, let tooLarge, let state):
            guard request.body.count <= max(0, limit) else { return .failure(tooLarge) }
            return .success(state)
        }
    }

    private mutating func respond(_ response: HTTPResponse, close: Bool) -> Action {
        phase = .done
        body = []
        state = nil
        return .respond(response, close: close)
    }
}

/// The status and header fields a response is sent with: a final status (1xx and out-of-range statuses are
/// handler bugs → 500), without `Content-Length`/`Transfer-Encoding` (the server frames the body), with
/// `Connection: close` (replacing the handler's own) when closing, and without fields that are not valid on the wire.
package struct ResponseFraming: Sendable, Equatable {
    package var status: Int
    package var headers: [Header]
    /// Names of header fields dropped as invalid (logged).
    package var invalid: [String]

    package struct Header: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package init(_ response: HTTPResponse, closing: Bool) {
        status = (200...599).contains(response.status) ? response.status : 500
        headers = []
        invalid = []
        headers.reserveCapacity(response.headers.count + 1)
        for (name, value) in response.headers {
            if HeaderName.equal(name, "Content-Length") || HeaderName.equal(name, "Transfer-Encoding") { continue }
            if closing && HeaderName.equal(name, "Connection") { continue }
            guard Self.isValid(name, value) else {
                invalid.append(name)
                continue
            }
            headers.append(Header(name: name, value: value))
        }
        if closing { headers.append(Header(name: "Connection", value: "close")) }
    }

    /// A token name (visible ASCII without `:`) and a value without CR, LF or NUL.
    package static func isValid(_ name: String, _ value: String) -> Bool {
        guard !name.isEmpty else { return false }
        // Native strings are contiguous UTF-8: scan the buffers (iterating the views costs several times more).
        let nameValid =
            name.utf8.withContiguousStorageIfAvailable(isToken) ?? Array(name.utf8).withUnsafeBufferPointer(isToken)
        guard nameValid else { return false }
        return value.utf8.withContiguousStorageIfAvailable(isFieldValue)
            ?? Array(value.utf8).withUnsafeBufferPointer(isFieldValue)
    }

    private static func isToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in bytes where c <= 32 || c >= 127 || c == UInt8(ascii: ":") { return false }
        return true
    }

    private static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in bytes where c == 13 || c == 10 || c == 0 { return false }
        return true
    }
}
