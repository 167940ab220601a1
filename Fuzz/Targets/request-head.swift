import HTTPServer

@testable import GatewayKit

/// Fuzz target `request-head`: a request target (`path?query` bytes) through the head check, the query parser,
/// path parameter decoding and every route's query validation.
func fuzzRequestHead(_ target: [UInt8]) {
    guard RequestHeadCheck.problem(target: target) == nil else { return }
    let text = String(decoding: target, as: UTF8.self)
    let mark = text.firstIndex(of: "?")
    let path = String(text[..<(mark ?? text.endIndex)])
    let head = HTTPRequestHead(method: "GET", path: path, rawQuery: mark.map { String(text[text.index(after: $0)...]) })
    let query = head.query
    _ = try? NearbyInput.command(query, userId: nil)
    _ = try? ResearchInput.news(query)
    _ = try? FindsInput.limit(query)
    let numbers = QueryNumbers(query)
    for key in query.keys {
        _ = try? numbers.double(key)
        _ = try? numbers.integer(key, default: 0, range: Int.min...Int.max)
    }
    _ = path.removingPercentEncodingSafely.map { ResearchInput.ratingTicker($0) }
    for segment in path.split(separator: "/") { _ = String(segment).removingPercentEncodingSafely }
}
