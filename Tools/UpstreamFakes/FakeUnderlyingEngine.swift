import Foundation
import HTTPServer
import Synchronization

/// The Underlying engine's Prism and Situate surface as it answers on the wire: `POST /api/prism` and
/// `/api/situate` build (and store) a packet; `GET /api/<engine>/<T>` reads it; `POST /api/prism/chat` and
/// `POST /api/situate/<T>/chat` answer a question from the stored packet in the engine's snake_case shape
/// (`reply`, `citations`, `conversation_id`, `model`, `generated_at`), or 404 `{"detail": …}` when none is stored.
/// Compose it into a `FakeUpstream` closure: `handle` answers nil for any other path.
public final class FakeUnderlyingEngine: Sendable {
    private let stored: Mutex<Set<String>>
    private let busy = Mutex<Int?>(nil)

    /// `built` holds `prism:<T>` / `situate:<T>` keys already stored.
    public init(built: Set<String> = []) { stored = Mutex(built) }

    /// Chat turns answer `status` (429 or 503 with `Retry-After: 7`) until set back to nil.
    public func setChatBusy(_ status: Int?) { busy.withLock { $0 = status } }

    /// Whether `engine`'s packet of `ticker` is stored.
    public func has(_ engine: String, _ ticker: String) -> Bool {
        stored.withLock { $0.contains("\(engine):\(ticker)") }
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse? {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count >= 2, parts[0] == "api", ["prism", "situate"].contains(parts[1]) else { return nil }
        let engine = parts[1]
        let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
        switch (request.method, parts.count) {
        case ("POST", 2):
            guard let ticker = body["ticker"] as? String else { return Self.json(422, ["detail": "ticker required"]) }
            stored.withLock { _ = $0.insert("\(engine):\(ticker)") }
            return Self.json(200, Self.packet(engine, ticker))
        case ("POST", 3) where engine == "prism" && parts[2] == "chat",
            ("POST", 4) where engine == "situate" && parts[3] == "chat":
            return chat(engine, body)
        case ("GET", 3):
            guard has(engine, parts[2]) else { return Self.json(404, ["detail": "no packet stored"]) }
            return Self.json(200, Self.packet(engine, parts[2]))
        default:
            return nil
        }
    }

    private func chat(_ engine: String, _ body: [String: Any]) -> HTTPResponse {
        if let status = busy.withLock({ $0 }) {
            return Self.json(status, ["detail": "engine at capacity"], headers: [("Retry-After", "7")])
        }
        guard let ticker = body["ticker"] as? String, let message = body["message"] as? String else {
            return Self.json(422, ["detail": "ticker and message required"])
        }
        guard has(engine, ticker) else { return Self.json(404, ["detail": "no \(engine) packet for \(ticker)"]) }
        let history = (body["history"] as? [[String: Any]])?.count ?? 0
        var citation: [String: Any] = [
            "id": "c1", "claim": "\(ticker) memo: steady franchise.", "url": NSNull(),
            "citation_type": ["type": "sec_filing", "source": "regex", "confidence": 0.8],
        ]
        if engine == "prism" {
            citation["source"] = "memo.recommendation"
        } else {
            citation["module"] = "memo.posture"
            citation["version"] = "1"
        }
        return Self.json(
            200,
            [
                "ticker": ticker,
                "reply":
                    "From the stored \(engine) packet of \(ticker) (\(history) earlier turns): \(message.prefix(80))",
                "citations": [citation],
                "conversation_id": (body["conversation_id"] as? String) ?? "conv-\(ticker.lowercased())",
                "model": "claude-test", "generated_at": "2026-12-03T12:00:00Z", "engine_version": "test",
            ])
    }

    static func packet(_ engine: String, _ ticker: String) -> [String: Any] {
        [
            "ticker": ticker, "as_of": "2026-12-03", "generated_at": "2026-12-03T12:00:00Z", "engine_version": "test",
            "memo": engine == "prism"
                ? ["recommendation": ["action": "buy", "strength": "normal", "conviction": 0.6, "one_line": "Steady."]]
                : ["posture": ["stance": "balanced", "horizon": "6m", "conviction": 0.5, "one_line": "Balanced."]],
        ]
    }

    static func json(_ status: Int, _ value: [String: Any], headers: [(String, String)] = []) -> HTTPResponse {
        let bytes = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8)
        return .json(status, raw: Array(bytes), headers: headers)
    }
}
