import Contracts
import Foundation
import Messaging
import RatingAdapters
import RatingCore

extension ResearchProxies {
    /// The engine answers a chat turn from its stored packet in up to 45 s (cut to the command's deadline).
    static let chatTimeout: Duration = .seconds(45)

    /// One chat turn about a stored packet: the engine's answer normalized (`EngineChat.reply`), or the engine's
    /// failure mapped as the summaries' (`engineFailure`, with the engine's own words where it gave some); 404
    /// `<engine>_packet_not_found` when nothing has been built for the ticker.
    public func chat(_ command: PacketChatCommand, deadline: ContinuousClock.Instant) async -> Reply {
        let engine = command.engine
        let label = engine.label
        let code = engine.rawValue
        guard let body = try? JSONEncoder().encode(EngineChat.upstreamBody(command)) else {
            return Self.coded(502, "\(label) request failed", "\(code)_request_failed")
        }
        let budget = max(.milliseconds(50), min(Self.chatTimeout, deadline - ContinuousClock.now - .milliseconds(200)))
        let reply = await underlying.send(
            EngineChat.path(engine, segment: UnderlyingClient.segment(command.ticker)), method: "POST",
            json: Array(body), kind: "\(code)_chat", timeout: budget)
        switch reply {
        case .notConfigured:
            return Self.coded(503, "\(label) engine is not configured", "\(code)_not_configured")
        case .timedOut:
            return Self.coded(504, "\(code) engine timed out", "\(code)_timeout")
        case .unreachable:
            return Self.coded(502, "\(label) engine is unavailable", "\(code)_upstream_failed", upstream: 502)
        case .answered(200, let bytes, _):
            guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
                return Self.coded(502, "\(label) engine is unavailable", "\(code)_upstream_failed", upstream: 200)
            }
            return .json(200, EngineChat.reply(fields, ticker: command.ticker))
        case .answered(let status, let bytes, let retryAfter):
            return Self.engineFailure(engine, status: status, detail: Self.detail(bytes), retryAfter: retryAfter)
        }
    }

    /// The engine's words about a failure: its plain-text body, or the `error` string of its JSON body; trimmed, at
    /// most 400 characters; nil when it said nothing usable.
    static func detail(_ bytes: [UInt8]) -> String? {
        let said: String?
        switch try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) {
        case .object(let fields)?: said = fields["error"]?.text
        case .string(let s)?: said = s
        case nil: said = String(validating: bytes, as: UTF8.self)
        default: said = nil
        }
        guard let trimmed = said?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(400))
    }
}
