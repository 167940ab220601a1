import Foundation
import Redis
import Runtime
import ServiceKit

/// Sums the hourly usage hashes every service's `UsageReporter` writes, over the last `hours` hours (the current one
/// included), by counter and label set.
struct UsageTotals: UsageSource {
    /// One counter series: its family name, labels and the summed growth.
    struct Series: Sendable, Equatable {
        var name: String
        var labels: [String: String]
        var value: Int64
    }

    let redis: RedisClient

    func sum(hours: Int) async throws -> [Series] {
        let now = Date()
        var totals: [String: Int64] = [:]
        for hour in 0..<hours {
            let reply = try await redis.command("HGETALL", UsageReporter.bucket(now - Double(hour) * 3600))
            guard case .array(let items) = reply else { continue }
            var index = 0
            while index + 1 < items.count {
                if let field = items[index].string, let value = items[index + 1].string.flatMap({ Int64($0) }) {
                    // Saturating: one corrupt bucket must not trap the gateway on an admin request.
                    let (sum, overflow) = totals[field, default: 0].addingReportingOverflow(value)
                    totals[field] = overflow ? (value < 0 ? .min : .max) : sum
                }
                index += 2
            }
        }
        return totals.compactMap { field, value in
            Self.parse(field).map { Series(name: $0.name, labels: $0.labels, value: value) }
        }.sorted { ($0.name, $0.labels.description) < ($1.name, $1.labels.description) }
    }

    /// `name{key="value",…}` as `MetricsRegistry` renders it (values JSON-quoted); nil when malformed.
    static func parse(_ field: String) -> (name: String, labels: [String: String])? {
        guard let open = field.firstIndex(of: "{"), field.last == "}" else { return nil }
        let name = String(field[..<open])
        var labels: [String: String] = [:]
        var rest = Substring(field[field.index(after: open)..<field.index(before: field.endIndex)])
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)...].first == "\"" else {
                return nil
            }
            let key = String(rest[..<equals])
            var cursor = rest.index(equals, offsetBy: 2)
            var value = ""
            var closed = false
            while cursor < rest.endIndex {
                let c = rest[cursor]
                if c == "\\", rest.index(after: cursor) < rest.endIndex {
                    cursor = rest.index(after: cursor)
                    value.append(rest[cursor])
                } else if c == "\"" {
                    closed = true
                    break
                } else {
                    value.append(c)
                }
                cursor = rest.index(after: cursor)
            }
            guard closed else { return nil }
            labels[key] = value
            rest = rest[rest.index(after: cursor)...]
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return (name, labels)
    }
}
