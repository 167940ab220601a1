import CCurl

/// `curl_global_init` exactly once, before the first handle (it is not thread-safe on its own).
enum CurlGlobal {
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}

/// Owns one `CURLM` handle. Only the driver thread uses it, except `wakeup()`, which libcurl allows from any thread.
final class CurlMulti: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    private init(raw: UnsafeMutableRawPointer) { self.raw = raw }

    static func make(maxConnectionsPerHost: Int) -> CurlMulti? {
        guard CurlGlobal.initialized, let raw = curl_multi_init() else { return nil }
        let multi = CurlMulti(raw: raw)  // frees `raw` if the next step fails
        guard
            mapvest_curl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnectionsPerHost))
                == CURLM_OK
        else { return nil }
        return multi
    }

    func wakeup() { _ = curl_multi_wakeup(raw) }

    deinit { curl_multi_cleanup(raw) }
}

/// Owns one `curl_slist`. Must outlive the easy handle that points at it (`CurlEasy` keeps it).
final class CurlHeaderList {
    private(set) var raw: UnsafeMutablePointer<curl_slist>?

    /// False when libcurl could not allocate (the list is unchanged).
    func append(_ line: String) -> Bool {
        guard let next = curl_slist_append(raw, line) else { return false }
        raw = next
        return true
    }

    deinit { curl_slist_free_all(raw) }
}

/// Owns one `CURL` easy handle, its error buffer and the header list it references.
final class CurlEasy {
    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Released after `curl_easy_cleanup` (stored properties outlive `deinit`'s body).
    var headerList: CurlHeaderList?

    private init(raw: UnsafeMutableRawPointer) {
        self.raw = raw
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    static func make() -> CurlEasy? {
        guard CurlGlobal.initialized, let raw = curl_easy_init() else { return nil }
        let easy = CurlEasy(raw: raw)
        guard easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(easy.errorBuffer)) else { return nil }
        return easy
    }

    /// libcurl's last detailed message for this handle (may name the host; never the query).
    var errorMessage: String { String(cString: errorBuffer) }

    func set(_ option: CURLoption, _ value: Int) -> Bool {
        mapvest_curl_easy_setopt_long(raw, option, value) == CURLE_OK
    }

    func set(_ option: CURLoption, offset value: Int) -> Bool {
        mapvest_curl_easy_setopt_off(raw, option, curl_off_t(value)) == CURLE_OK
    }

    /// Strings are copied by libcurl.
    func set(_ option: CURLoption, string value: String) -> Bool {
        mapvest_curl_easy_setopt_pointer(raw, option, value) == CURLE_OK
    }

    func set(_ option: CURLoption, pointer value: UnsafeRawPointer?) -> Bool {
        mapvest_curl_easy_setopt_pointer(raw, option, value) == CURLE_OK
    }

    func set(_ option: CURLoption, callback: curl_write_callback) -> Bool {
        mapvest_curl_easy_setopt_write_callback(raw, option, callback) == CURLE_OK
    }

    func info(_ info: CURLINFO) -> Int {
        var value = 0
        _ = mapvest_curl_easy_getinfo_long(raw, info, &value)
        return value
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }
}
