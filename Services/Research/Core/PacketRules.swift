import Contracts
import Foundation

/// The rules of Prism and Situate builds, with no I/O: which day a build is for, what the engine is sent, what an
/// engine failure means for the job, the notification, the exports and the errors the client sees.
public enum PacketRules {
    /// How many times a build runs at most (the first run, and one restart after a failure or a lost replica).
    public static let maxAttempts = 2

    /// The build's day: Situate's `asOf` when given, else the UTC day of `now`.
    public static func day(kind: PacketKind, asOf: String?, now: Date) -> String {
        if kind == .situate, let asOf { return asOf }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: now)
    }

    /// The engine's build body: `{ticker, force?, include_memo?, as_of?}`.
    public static func upstreamBody(_ command: PacketBuildCommand) -> [String: JSONValue] {
        var body: [String: JSONValue] = ["ticker": .string(command.ticker)]
        if command.force { body["force"] = .bool(true) }
        if let memo = command.includeMemo { body["include_memo"] = .bool(memo) }
        if command.kind == .situate, let asOf = command.asOf { body["as_of"] = .string(asOf) }
        return body
    }

    /// What an engine answer means for the job.
    public enum Verdict: Sendable, Equatable {
        case stored
        /// Worth another attempt (busy, timed out, unreachable, 5xx), if one is left.
        case retry(String)
        /// The engine refused the request (4xx): no retry.
        case refused(String)
    }

    /// `status` 0 means no answer (timeout or network).
    public static func verdict(status: Int, body: [UInt8], kind: PacketKind) -> Verdict {
        switch status {
        case 200..<300:
            let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body))
            return object == nil ? .retry("\(kind.title) engine answered no packet") : .stored
        case 0: return .retry("\(kind.title) engine timed out or is unreachable")
        case 400, 404, 422:
            return .refused(detail(body) ?? "\(kind.title) engine rejected the request")
        default: return .retry("\(kind.title) engine is unavailable (HTTP \(status))")
        }
    }

    /// The engine's own words: a string body or its `error`/`detail` string, trimmed, at most 400 characters.
    public static func detail(_ body: [UInt8]) -> String? {
        let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(body))
        var text: String?
        if case .string(let e)? = object?["error"] { text = e }
        if text == nil, case .string(let d)? = object?["detail"] { text = d }
        if text == nil, object == nil { text = String(decoding: body, as: UTF8.self) }
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(400))
    }

    /// `memo_finished` for one owner of a build: once per build generation and owner.
    public static func push(userId: String, kind: PacketKind, ticker: String, buildId: String, generation: Int)
        -> PushRequest
    {
        PushRequest(
            id: "packet-\(buildId)-\(generation)-\(userId)", userIds: [userId], eventKey: .memoFinished,
            eventKind: "memo_finished", title: "Your $\(ticker) \(kind.title) memo is ready",
            body: "The \(kind.title) packet on $\(ticker) is built and ready to read.",
            data: [
                "kind": .string("memo_finished"), "ticker": .string(ticker), "source": .string(kind.rawValue),
            ],
            target: PushTarget(type: "company", fields: ["ticker": .string(ticker)]),
            dedupe: [PushDedupe(slot: "memo_finished", key: "\(kind.rawValue)-\(buildId)-\(generation)")])
    }

    /// The 404 before any packet exists.
    public static func notFound(_ kind: PacketKind) -> [String: String] {
        [
            "error": "no \(kind.title) packet for this ticker yet — POST /v1/\(kind.rawValue) to build one",
            "code": "\(kind.rawValue)_packet_not_found",
        ]
    }

    /// A failed build's answer.
    public static func failed(_ kind: PacketKind, detail: String?) -> [String: String] {
        ["error": detail ?? "\(kind.title) engine is unavailable", "code": "\(kind.rawValue)_upstream_failed"]
    }

    /// `prism-<T>.<format>` with characters outside `[A-Z0-9.-]` as `_`.
    public static func fileName(kind: PacketKind, ticker: String, format: String) -> String {
        let safe = String(
            ticker.map { ($0.isASCII && ($0.isUppercase || $0.isNumber)) || $0 == "." || $0 == "-" ? $0 : "_" })
        return "\(kind.rawValue)-\(safe).\(format)"
    }

    /// The packet as plain text: a header, then every field as `path: value`, nested objects indented.
    public static func text(_ packet: [String: JSONValue], kind: PacketKind, ticker: String) -> String {
        var lines = ["\(kind.title) packet — $\(ticker)", "Research only. Not investment advice.", ""]
        for key in packet.keys.sorted() { append(key, packet[key] ?? .null, depth: 0, to: &lines) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func append(_ key: String, _ value: JSONValue, depth: Int, to lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        switch value {
        case .object(let fields):
            lines.append(indent + key + ":")
            for k in fields.keys.sorted() { append(k, fields[k] ?? .null, depth: depth + 1, to: &lines) }
        case .array(let items):
            lines.append(indent + key + ":")
            for (i, item) in items.enumerated() { append("- \(i + 1)", item, depth: depth + 1, to: &lines) }
        case .string(let s): lines.append(indent + key + ": " + s)
        case .number(let n):
            lines.append(indent + key + ": " + (n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)))
        case .bool(let b): lines.append(indent + key + ": " + (b ? "yes" : "no"))
        case .null: lines.append(indent + key + ": —")
        }
    }
}
