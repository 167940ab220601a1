import HTTPServer
import Testing

@Suite("Request lifecycle (no socket)")
struct RequestLifecycleTests {
    static let discardLimit = 100

    func head(_ method: String = "POST", headers: HTTPHeaders = [:], contentLength: Int? = nil) -> HTTPRequestHead {
        HTTPRequestHead(method: method, path: "/p", headers: headers, contentLength: contentLength)
    }

    /// A lifecycle with a `Content-Length: length` head, resumed by `head()` deciding `.readBody(limit:)`.
    func reading(length: Int?, limit: Int, chunked: Bool = false) -> Lifecycle {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
        let headers: HTTPHeaders =
            chunked ? ["Transfer-Encoding": "chunked"] : ["Content-Length": String(length ?? 0)]
        let action = lifecycle.headersArrived(
            head(headers: headers, contentLength: length), targetProblem: nil, headersClean: true)
        #expect(action.suspended == .decide)
        let resumed = lifecycle.call(upload: [UInt8](), outcome: .decision(.accept(limit: limit)))
        #expect(resumed.kind == .proceed)
        #expect(lifecycle.phase == .readingBody)
        return lifecycle
    }

    @Test func aBodylessRequestIsOfferedToImmediateAndAnsweredOnTheSpot() {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
        #expect(lifecycle.headersArrived(head("GET"), targetProblem: nil, headersClean: true).kind == .proceed)
        #expect(lifecycle.phase == .awaitingFinal)
        #expect(!lifecycle.awaitsOutcome)
        guard case .tryImmediate(let offered) = lifecycle.call(upload: [UInt8](), outcome: nil) else {
            Issue.record("the final call of a body-less request must offer it to immediate()")
            return
        }
        #expect(offered.method == "GET")
        let answer = lifecycle.immediate(.text(200, "ok"))
        #expect(answer.response?.status == 200)
        #expect(answer.closes == false)
        #expect(lifecycle.phase == .done)
    }

    @Test func withoutAnImmediateAnswerABodylessRequestRunsHeadThenHandle() {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
        _ = lifecycle.headersArrived(head("GET", contentLength: 0), targetProblem: nil, headersClean: true)
        _ = lifecycle.call(upload: [UInt8](), outcome: nil)
        #expect(lifecycle.immediate(nil).suspended == .headThenHandle)
        #expect(lifecycle.phase == .handling)
        #expect(lifecycle.awaitsOutcome)
        // A spurious call before the task resumes the connection changes nothing.
        #expect(lifecycle.call(upload: [UInt8](), outcome: nil).kind == .proceed)
        let done = lifecycle.call(upload: [UInt8](), outcome: .response(.empty(204)))
        #expect(done.response?.status == 204)
        #expect(done.closes == false)
        #expect(lifecycle.phase == .done)
        #expect(lifecycle.call(upload: [UInt8](), outcome: nil).kind == .proceed)
    }

    @Test func aBadTargetOrHeaderIsA400ThatClosesBeforeAnyHandler() {
        var badTarget = Lifecycle(discardLimit: Self.discardLimit)
        let refused = badTarget.headersArrived(head(), targetProblem: "bad path", headersClean: true)
        #expect(refused.response?.status == 400)
        #expect(refused.response.map { String(decoding: $0.body, as: UTF8.self) } == #"{"error":"bad path"}"#)
        #expect(refused.closes == true)
        #expect(badTarget.phase == .done)

        var badHeader = Lifecycle(discardLimit: Self.discardLimit)
        let header = badHeader.headersArrived(
            head(headers: ["Content-Length": "5"], contentLength: 5), targetProblem: nil, headersClean: false)
        #expect(header.response?.status == 400)
        #expect(
            header.response.map { String(decoding: $0.body, as: UTF8.self) }
                == "{\"error\":\"\(RequestHeadCheck.badHeader)\"}")
    }

    @Test func aDeclaredOrChunkedBodyIsDecidedBeforeItIsRead() {
        for headers: HTTPHeaders in [["Content-Length": "3"], ["Transfer-Encoding": "gzip, Chunked"]] {
            var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
            let length = headers["Content-Length"].flatMap { Int($0) }
            let action = lifecycle.headersArrived(
                head(headers: headers, contentLength: length), targetProblem: nil, headersClean: true)
            #expect(action.suspended == .decide, "\(headers.pairs)")
            #expect(lifecycle.phase == .deciding)
            // Suspended: calls without the outcome wait.
            #expect(lifecycle.call(upload: [UInt8](), outcome: nil).kind == .proceed)
            #expect(lifecycle.phase == .deciding)
        }
    }

    @Test func aRefusalFromHeadClosesTheConnectionWithTheBodyUnread() {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
        _ = lifecycle.headersArrived(
            head(headers: ["Content-Length": "9"], contentLength: 9), targetProblem: nil, headersClean: true)
        let action = lifecycle.call(upload: [UInt8](), outcome: .decision(.respond(.error(401, "sign in"))))
        #expect(action.response?.status == 401)
        #expect(action.closes == true)
        #expect(lifecycle.phase == .done)
    }

    @Test func aDeclaredLengthOverTheLimitIsTheRoutesTooLargeAnswerAtOnce() {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
        _ = lifecycle.headersArrived(
            head(headers: ["Content-Length": "11"], contentLength: 11), targetProblem: nil, headersClean: true)
        let tooLarge = HTTPResponse.error(413, "photo too large")
        let action = lifecycle.call(
            upload: [UInt8](), outcome: .decision(.readBody(limit: 10, tooLarge: tooLarge, state: nil)))
        #expect(action.response?.status == 413)
        #expect(action.response?.body == tooLarge.body)
        #expect(action.closes == true)
        #expect(lifecycle.phase == .done)
    }

    @Test func theBodyAccumulatesAcrossCallsAndReachesHandleWithTheState() {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
        _ = lifecycle.headersArrived(
            head(headers: ["Content-Length": "6"], contentLength: 6), targetProblem: nil, headersClean: true)
        _ = lifecycle.call(
            upload: [UInt8](), outcome: .decision(.readBody(limit: 6, tooLarge: .empty(413), state: "route-state")))
        #expect(lifecycle.call(upload: Array("abc".utf8), outcome: nil).kind == .consume)
        #expect(lifecycle.call(upload: Array("def".utf8), outcome: nil).kind == .consume)
        #expect(lifecycle.received == 6)
        guard case .suspend(.handle(let request, let state)) = lifecycle.call(upload: [UInt8](), outcome: nil) else {
            Issue.record("the final call must hand the complete request to handle()")
            return
        }
        #expect(request.body == Array("abcdef".utf8))
        #expect(state == "route-state")
        #expect(lifecycle.phase == .handling)
        #expect(lifecycle.body.isEmpty)
    }

    @Test func aChunkedBodyPastItsLimitIsDroppedThenAnsweredTooLarge() {
        var lifecycle = reading(length: nil, limit: 4, chunked: true)
        #expect(lifecycle.call(upload: [UInt8](repeating: 1, count: 3), outcome: nil).kind == .consume)
        #expect(lifecycle.call(upload: [UInt8](repeating: 1, count: 3), outcome: nil).kind == .consume)
        #expect(lifecycle.phase == .discarding)
        #expect(lifecycle.body.isEmpty)
        #expect(lifecycle.received == 2)  // bytes past the limit
        #expect(lifecycle.call(upload: [UInt8](repeating: 1, count: 50), outcome: nil).kind == .consume)
        let answer = lifecycle.call(upload: [UInt8](), outcome: nil)
        #expect(answer.response?.status == 413)
        #expect(answer.closes == true)
    }

    @Test func anUploadPastTheDiscardLimitIsAbortedUnanswered() {
        var lifecycle = reading(length: nil, limit: 4, chunked: true)
        _ = lifecycle.call(upload: [UInt8](repeating: 1, count: 5), outcome: nil)
        #expect(lifecycle.phase == .discarding)
        // One byte past the limit so far; the discard limit counts from there.
        #expect(
            lifecycle.call(upload: [UInt8](repeating: 1, count: Self.discardLimit - 1), outcome: nil).kind == .consume)
        guard case .abort(.oversizedUpload) = lifecycle.call(upload: [UInt8](repeating: 1, count: 1), outcome: nil)
        else {
            Issue.record("past the discard limit the connection must be closed without an answer")
            return
        }
        #expect(lifecycle.phase == .done)
    }

    @Test func aHandlerAnswerKeepsTheConnectionAndAStrayDecisionIsA500() {
        var answered = reading(length: 1, limit: 10)
        _ = answered.call(upload: [UInt8(7)], outcome: nil)
        _ = answered.call(upload: [UInt8](), outcome: nil)
        let ok = answered.call(upload: [UInt8](), outcome: .response(.text(201, "made")))
        #expect(ok.response?.status == 201)
        #expect(ok.closes == false)

        var confused = reading(length: 1, limit: 10)
        _ = confused.call(upload: [UInt8(7)], outcome: nil)
        _ = confused.call(upload: [UInt8](), outcome: nil)
        let bug = confused.call(upload: [UInt8](), outcome: .decision(.accept()))
        #expect(bug.response?.status == 500)
        #expect(bug.closes == true)
    }

    @Test func aShutdownAnswerWhileDecidingClosesTheConnection() {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit)
        _ = lifecycle.headersArrived(
            head(headers: ["Content-Length": "2"], contentLength: 2), targetProblem: nil, headersClean: true)
        let action = lifecycle.call(upload: [UInt8](), outcome: .response(.error(503, "server shutting down")))
        #expect(action.response?.status == 503)
        #expect(action.closes == true)
    }

    @Test func eventsOutOfOrderAbortInsteadOfGuessing() {
        var fresh = Lifecycle(discardLimit: Self.discardLimit)
        #expect(fresh.call(upload: [UInt8](), outcome: nil).aborted == .unexpected)
        #expect(fresh.immediate(nil).aborted == .unexpected)
        _ = fresh.headersArrived(head("GET"), targetProblem: nil, headersClean: true)
        #expect(fresh.headersArrived(head("GET"), targetProblem: nil, headersClean: true).aborted == .unexpected)
    }

    // MARK: A small declared body: read first, then one task for head() and handle()

    static let smallBodyLimit = 16

    /// A lifecycle whose head declares `Content-Length: length` (plus `headers`), with the small-body path on.
    func small(length: Int, headers: HTTPHeaders = [:]) -> (Lifecycle, Lifecycle.Action) {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit, smallBodyLimit: Self.smallBodyLimit)
        var all = headers
        all.add("Content-Length", String(length))
        let action = lifecycle.headersArrived(
            head(headers: all, contentLength: length), targetProblem: nil, headersClean: true)
        return (lifecycle, action)
    }

    /// The request `.decideThenHandle` carries after `parts` arrived in that many upload calls and the final call.
    func readSmall(_ parts: [String]) -> (Lifecycle, HTTPRequest?) {
        var (lifecycle, action) = small(length: parts.reduce(0) { $0 + $1.utf8.count })
        #expect(action.kind == .proceed)
        #expect(lifecycle.phase == .readingSmallBody)
        #expect(!lifecycle.awaitsOutcome)
        for part in parts { #expect(lifecycle.call(upload: Array(part.utf8), outcome: nil).kind == .consume) }
        guard case .suspend(.decideThenHandle(let request)) = lifecycle.call(upload: [UInt8](), outcome: nil) else {
            Issue.record("the final call of a small body must suspend once for head() and handle()")
            return (lifecycle, nil)
        }
        #expect(lifecycle.phase == .decidingAndHandling)
        #expect(lifecycle.awaitsOutcome)
        #expect(lifecycle.body.isEmpty)
        return (lifecycle, request)
    }

    @Test func aSmallDeclaredBodyArrivingInSeveralCallsIsReadBeforeOneSuspension() {
        var (lifecycle, read) = readSmall(["ab", "cde", "f"])
        guard let request = read else { return }
        #expect(request.body == Array("abcdef".utf8))
        #expect(lifecycle.received == 6)
        // A spurious call before the task resumes the connection changes nothing.
        #expect(lifecycle.call(upload: [UInt8](), outcome: nil).kind == .proceed)
        #expect(lifecycle.phase == .decidingAndHandling)
        let done = lifecycle.call(upload: [UInt8](), outcome: .response(.text(201, "made")))
        #expect(done.response?.status == 201)
        #expect(done.closes == false)
        #expect(lifecycle.phase == .done)
    }

    @Test func theSmallBodyLimitItselfIsReadFirstAndOneByteMoreIsDecidedFirst() {
        let (atLimit, first) = small(length: Self.smallBodyLimit)
        #expect(first.kind == .proceed)
        #expect(atLimit.phase == .readingSmallBody)
        let (overLimit, decide) = small(length: Self.smallBodyLimit + 1)
        #expect(decide.suspended == .decide)
        #expect(overLimit.phase == .deciding)
    }

    @Test func expectContinueChunkedUnknownOrZeroLengthKeepTheirPaths() {
        let (continued, decide) = small(length: 5, headers: ["Expect": "100-Continue"])
        #expect(decide.suspended == .decide)
        #expect(continued.phase == .deciding)

        let (chunked, chunkedDecide) = small(length: 5, headers: ["Transfer-Encoding": "chunked"])
        #expect(chunkedDecide.suspended == .decide)
        #expect(chunked.phase == .deciding)

        var unknown = Lifecycle(discardLimit: Self.discardLimit, smallBodyLimit: Self.smallBodyLimit)
        let unparsed = unknown.headersArrived(
            head(headers: ["Content-Length": "five"], contentLength: nil), targetProblem: nil, headersClean: true)
        #expect(unparsed.suspended == .decide)

        var (empty, none) = small(length: 0)
        #expect(none.kind == .proceed)
        #expect(empty.phase == .awaitingFinal)
        guard case .tryImmediate = empty.call(upload: [UInt8](), outcome: nil) else {
            Issue.record("a zero-length body is a body-less request")
            return
        }
        #expect(empty.immediate(nil).suspended == .headThenHandle)
    }

    @Test func aBadHeadIsStillA400BeforeTheSmallBodyIsRead() {
        var lifecycle = Lifecycle(discardLimit: Self.discardLimit, smallBodyLimit: Self.smallBodyLimit)
        let action = lifecycle.headersArrived(
            head(headers: ["Content-Length": "3"], contentLength: 3), targetProblem: "bad path", headersClean: true)
        #expect(action.response?.status == 400)
        #expect(action.closes == true)
    }

    @Test func aRefusalAfterTheSmallBodyClosesTheConnectionLikeARefusalBeforeIt() {
        var (lifecycle, read) = readSmall(["abc"])
        guard let request = read,
            let answer = Lifecycle.admit(request, by: .respond(.error(429, "slow down"))).refusal
        else {
            Issue.record("head()'s own answer refuses the request")
            return
        }
        let action = lifecycle.call(upload: [UInt8](), outcome: .decision(.respond(answer)))
        #expect(action.response?.status == 429)
        #expect(action.response.map { String(decoding: $0.body, as: UTF8.self) } == #"{"error":"slow down"}"#)
        #expect(action.closes == true)
        #expect(lifecycle.phase == .done)
    }

    @Test func theDecisionsLimitIsCheckedAgainstTheBodyReadFirst() {
        let request = HTTPRequest(head: head(contentLength: 6), body: Array("abcdef".utf8))
        let tooLarge = HTTPResponse.error(413, "photo too large")
        func admit(limit: Int) -> Result<String?, HTTPResponse> {
            Lifecycle.admit(request, by: .readBody(limit: limit, tooLarge: tooLarge, state: "route-state"))
        }
        let over = admit(limit: 5).refusal
        #expect(over?.status == 413)
        #expect(over?.body == tooLarge.body)
        // A body of exactly the limit is handled, with the decision's state.
        let exact = try? admit(limit: 6).get()
        #expect(exact == .some("route-state"))
        #expect(admit(limit: -1).refusal?.status == 413)
    }

    @Test func aTooLargeAnswerAfterTheSmallBodyClosesAndAStrayDecisionIsA500() {
        var (tooLarge, _) = readSmall(["abcdef"])
        let answer = tooLarge.call(upload: [UInt8](), outcome: .decision(.respond(.error(413, "too large"))))
        #expect(answer.response?.status == 413)
        #expect(answer.closes == true)

        var (confused, _) = readSmall(["x"])
        let bug = confused.call(upload: [UInt8](), outcome: .decision(.accept()))
        #expect(bug.response?.status == 500)
        #expect(bug.closes == true)
    }

    @Test func aShutdownAnswerAfterTheSmallBodyIsSent() {
        var (lifecycle, _) = readSmall(["ab"])
        let action = lifecycle.call(upload: [UInt8](), outcome: .response(.error(503, "server shutting down")))
        #expect(action.response?.status == 503)
        #expect(lifecycle.phase == .done)
    }

    @Test func moreBytesThanTheDeclaredSmallLengthAbort() {
        var (lifecycle, _) = small(length: 2)
        #expect(lifecycle.call(upload: Array("abc".utf8), outcome: nil).aborted == .unexpected)
        #expect(lifecycle.phase == .done)
        #expect(lifecycle.body.isEmpty)
    }

    @Test func responseFramingOwnsLengthAndConnectionAndDropsInvalidFields() {
        let response = HTTPResponse(
            status: 200,
            headers: [
                ("Content-Length", "99"), ("transfer-encoding", "chunked"), ("Connection", "keep-alive"),
                ("X-Ok", "1"), ("Bad Name", "x"), ("X-Split", "a\r\nInjected: yes"), ("", "empty"),
                ("Content-Lengtz", "2"), ("X-Ünicode", "x"), ("X-Nul", "a\u{0}b"), ("X-Utf8", "café"),
            ])
        let open = ResponseFraming(response, closing: false)
        #expect(open.status == 200)
        #expect(
            open.headers == [
                .init(name: "Connection", value: "keep-alive"), .init(name: "X-Ok", value: "1"),
                .init(name: "Content-Lengtz", value: "2"), .init(name: "X-Utf8", value: "café"),
            ])
        #expect(open.invalid == ["Bad Name", "X-Split", "", "X-Ünicode", "X-Nul"])

        let closing = ResponseFraming(response, closing: true)
        #expect(
            closing.headers == [
                .init(name: "X-Ok", value: "1"), .init(name: "Content-Lengtz", value: "2"),
                .init(name: "X-Utf8", value: "café"), .init(name: "Connection", value: "close"),
            ])

        #expect(ResponseFraming(.empty(101), closing: false).status == 500)
        #expect(ResponseFraming(.empty(600), closing: false).status == 500)
        #expect(ResponseFraming(.empty(599), closing: false).status == 599)
    }
}
