import HTTPServer
import Runtime

/// The gateway's one parser of numbers in query strings (`lat`, `lng`, `radius`, `limit`, `zoom`), as strict as
/// docs/openapi.yaml: absent or empty → the route's default; text that is not a finite number, or a number outside
/// the documented range, is a 400 naming the parameter. A number is range-checked before it becomes an `Int`, so no
/// query can trap the process.
struct QueryNumbers: Sendable {
    let query: [String: String]

    init(_ query: [String: String]) { self.query = query }

    /// The finite number in `name`, or nil when it is absent or empty; anything else that is not a finite number
    /// is a 400.
    func double(_ name: String) throws(HTTPResponse) -> Double? {
        guard let text = query[name]?.trimmingASCIISpaces(), !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite else { throw .error(400, "\(name) must be a finite number") }
        return value
    }

    /// A number in `range` (inclusive), or nil when absent; outside the range is a 400 naming the range.
    func double(_ name: String, in range: ClosedRange<Double>) throws(HTTPResponse) -> Double? {
        guard let value = try double(name) else { return nil }
        guard range.contains(value) else { throw Self.outOfRange(name, range) }
        return value
    }

    /// An integer parameter: `fallback` when absent; a number in `range` is truncated toward zero; anything else
    /// is a 400.
    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(HTTPResponse) -> Int {
        try double(name, in: Double(range.lowerBound)...Double(range.upperBound))?.clampedInt(range) ?? fallback
    }

    private static func outOfRange(_ name: String, _ range: ClosedRange<Double>) -> HTTPResponse {
        // Whole bounds print as integers; the check keeps `Int(_:)` away from values it would trap on.
        func shown(_ x: Double) -> String { x == x.rounded() && x.magnitude < 1e15 ? String(Int(x)) : String(x) }
        return .error(400, "\(name) must be between \(shown(range.lowerBound)) and \(shown(range.upperBound))")
    }
}
