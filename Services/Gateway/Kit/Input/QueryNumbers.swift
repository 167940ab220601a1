import HTTPServer
import Runtime

/// The gateway's one parser of numbers in query strings (`lat`, `lng`, `radius`, `limit`, `zoom`). A number is
/// range-checked before it becomes an `Int`, so no query can trap the process; text that reads as a number no
/// `Double` holds finitely (`1e400`, `inf`, `nan`) is a 400. Absent, empty and non-numeric values are nil, and routes
/// then use their contract defaults.
struct QueryNumbers: Sendable {
    let query: [String: String]

    init(_ query: [String: String]) { self.query = query }

    /// The finite number in `name`, or nil when it is absent, empty or not a number.
    func double(_ name: String) throws(HTTPResponse) -> Double? {
        guard let text = query[name]?.trimmingASCIISpaces(), !text.isEmpty, let value = Double(text) else {
            return nil
        }
        guard value.isFinite else { throw .error(400, "\(name) must be a finite number") }
        return value
    }

    /// An integer parameter: truncated toward zero and clamped to `range`; `fallback` when absent or not a number.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(HTTPResponse) -> Int {
        try double(name)?.clampedInt(range) ?? fallback
    }
}
