import CCurl
import Synchronization

/// One request in flight: its easy handle, what libcurl wrote so far and the caller's continuation.
///
/// Everything but `cancelled` is touched by the driver thread only once the transfer is submitted
/// (libcurl runs the write and header callbacks inside `curl_multi_perform` on that thread).
final class Transfer: @unchecked Sendable {
    typealias Outcome = Result<HTTPClientResponse, HTTPClientError>

    let easy: CurlEasy
    let method: String
    let url: String
    let maxResponseBytes: Int
    let cancelled = Atomic<Bool>(false)

    var continuation: CheckedContinuation<Outcome, Never>?
    private var body: [UInt8] = []
    private var headers: [(String, String)] = []
    private var overflowed = false

    private init(easy: CurlEasy, request: HTTPClientRequest) {
        self.easy = easy
        self.method = request.method
        self.url = request.url
        self.maxResponseBytes = max(0, request.maxResponseBytes)
    }

    /// A configured transfer, or a `.other` error for an unusable request (bad header, out of memory).
    static func make(_ request: HTTPClientRequest) -> Result<Transfer, HTTPClientError> {
        func failure(_ detail: String) -> Result<Transfer, HTTPClientError> {
            .failure(HTTPClientError(kind: .other, method: request.method, url: request.url, detail: detail))
        }
        guard let easy = CurlEasy.make() else { return failure("cannot create a curl handle") }
        let transfer = Transfer(easy: easy, request: request)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        let method = request.method.uppercased()
        guard !method.isEmpty, method.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return failure("invalid method") }

        var ok =
            easy.set(CURLOPT_URL, string: request.url)
            && easy.set(CURLOPT_NOSIGNAL, 1)
            && easy.set(CURLOPT_PROTOCOLS_STR, string: "http,https")
            && easy.set(CURLOPT_REDIR_PROTOCOLS_STR, string: "http,https")
            && easy.set(CURLOPT_TIMEOUT_MS, request.timeout.curlMilliseconds)
            && easy.set(CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeout.curlMilliseconds)
            && easy.set(CURLOPT_WRITEFUNCTION, callback: writeCallback)
            && easy.set(CURLOPT_WRITEDATA, pointer: context)
            && easy.set(CURLOPT_HEADERFUNCTION, callback: headerCallback)
            && easy.set(CURLOPT_HEADERDATA, pointer: context)
        if request.followRedirects {
            ok = ok && easy.set(CURLOPT_FOLLOWLOCATION, 1) && easy.set(CURLOPT_MAXREDIRS, 5)
        }
        if let body = request.body {
            // COPYPOSTFIELDS copies the bytes; the size must be set first.
            ok = ok && easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: body.count)
            ok =
                ok
                && body.withUnsafeBytes { bytes in
                    easy.set(
                        CURLOPT_COPYPOSTFIELDS,
                        pointer: bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start))
                }
            if method != "POST" { ok = ok && easy.set(CURLOPT_CUSTOMREQUEST, string: method) }
        } else {
            switch method {
            case "GET": ok = ok && easy.set(CURLOPT_HTTPGET, 1)
            case "HEAD": ok = ok && easy.set(CURLOPT_NOBODY, 1)
            default: ok = ok && easy.set(CURLOPT_CUSTOMREQUEST, string: method)
            }
        }
        guard ok else { return failure("cannot configure the request (bad URL or option)") }

        let list = CurlHeaderList()
        var sawExpect = false
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }),
                !value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 })
            else { return failure("invalid request header") }
            if asciiCaseInsensitiveEqual(name, "Expect") { sawExpect = true }
            // "Name;" sends an empty value; "Name:" would remove the header.
            guard list.append(value.isEmpty ? "\(name);" : "\(name): \(value)") else { return failure("out of memory") }
        }
        // No `Expect: 100-continue` round trip (libcurl would wait up to 1 s for large bodies).
        if !sawExpect { guard list.append("Expect:") else { return failure("out of memory") } }
        easy.headerList = list
        guard easy.set(CURLOPT_HTTPHEADER, pointer: list.raw.map { UnsafeRawPointer($0) }) else {
            return failure("cannot set headers")
        }
        return .success(transfer)
    }

    // MARK: Driver thread

    /// Resumes the caller; called exactly once, on the driver thread.
    func finish(_ outcome: Outcome) {
        continuation?.resume(returning: outcome)
        continuation = nil
    }

    func outcome(for code: CURLcode) -> Outcome {
        if code == CURLE_OK {
            return .success(
                HTTPClientResponse(
                    status: easy.info(CURLINFO_RESPONSE_CODE), headers: HTTPClientHeaders(headers), body: body))
        }
        return .failure(error(for: code))
    }

    func error(_ kind: HTTPClientError.Kind, _ detail: String) -> HTTPClientError {
        HTTPClientError(kind: kind, method: method, url: url, detail: detail)
    }

    private func error(for code: CURLcode) -> HTTPClientError {
        let kind: HTTPClientError.Kind
        switch code {
        case CURLE_OPERATION_TIMEDOUT: kind = .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR:
            kind = .connect
        default: kind = .other
        }
        var detail = easy.errorMessage
        if detail.isEmpty { detail = String(cString: curl_easy_strerror(code)) }
        if overflowed { detail = "response larger than \(maxResponseBytes) bytes" }
        return HTTPClientError(kind: kind, code: Int(code.rawValue), method: method, url: url, detail: detail)
    }

    fileprivate func append(body bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxResponseBytes else {
            overflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func received(headerLine bytes: UnsafeRawBufferPointer) {
        // Each response (a 100 Continue, a redirect, the final one) starts with its status line.
        if bytes.starts(with: "HTTP/".utf8) {
            headers.removeAll()
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return }
        let isSpace: (UInt8) -> Bool = { $0 == 32 || $0 == 9 || $0 == 13 || $0 == 10 }
        var start = colon + 1
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        headers.append((name, value))
    }
}

private let writeCallback: curl_write_callback = { data, size, count, userdata in
    let (n, overflow) = size.multipliedReportingOverflow(by: count)
    guard let userdata, !overflow else { return 0 }
    guard n > 0, let data else { return n }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.append(body: UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
}

private let headerCallback: curl_write_callback = { data, size, count, userdata in
    let (n, overflow) = size.multipliedReportingOverflow(by: count)
    guard let userdata, let data, !overflow else { return overflow ? 0 : n }
    Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
        .received(headerLine: UnsafeRawBufferPointer(start: data, count: n))
    return n
}
