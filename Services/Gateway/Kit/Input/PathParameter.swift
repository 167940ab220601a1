import HTTPServer

extension String {
    /// Percent-decoding that returns nil on malformed escapes or invalid UTF-8 instead of trapping.
    var removingPercentEncodingSafely: String? { QueryString.strictlyDecoded(self) }
}
