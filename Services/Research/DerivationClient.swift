import Contracts
import Foundation
import HTTPClient
import ResearchCore
import Runtime

/// The Derivation Research Console (`DERIVATION_URL`, `DERIVATION_RESEARCH_SERVICE_TOKEN`): `POST /api/explore` in
/// agent mode starts or steers a conversation, `GET /api/autoresearch?conversation_id=…&summary=1` is polled until a
/// terminal status, then `…&display=1` gives the brief. Anything else it answers — an HTTP error, a machine code such
/// as `MODEL_BUDGET_EXHAUSTED`, no brief — is a failure the caller falls back from; its text never reaches a client.
struct DerivationClient: Sendable {
    let origin: String
    let token: String
    var pollInterval: Duration = .milliseconds(1500)
    var http: HTTPClient

    /// A client when `DERIVATION_URL` (or `DERIVATION_RESEARCH_API_ORIGIN`) is http(s) and a service token is set.
    static func fromEnvironment(_ env: Environment, http: HTTPClient) -> DerivationClient? {
        let raw = env.get("DERIVATION_RESEARCH_API_ORIGIN") ?? env.get("DERIVATION_URL") ?? ""
        var origin = raw.trimmingCharacters(in: .whitespaces)
        while origin.hasSuffix("/") { origin.removeLast() }
        guard origin.hasPrefix("https://") || origin.hasPrefix("http://"),
            let token = env.get("DERIVATION_RESEARCH_SERVICE_TOKEN"), !token.isEmpty
        else { return nil }
        return DerivationClient(
            origin: origin, token: token,
            pollInterval: env.milliseconds("DERIVATION_POLL_INTERVAL_MS", default: .milliseconds(1500)), http: http)
    }

    struct Brief: Sendable {
        var content: String
        var status: ResearchStatus
        var conversationId: String
        var phase: String?
        var progress: ResearchProgress?
    }

    enum Failure: Error {
        case unavailable(String)
        case machineError(String)
        case noBrief
        /// The run is still going at the deadline (its conversation id).
        case stillRunning(String)
        /// Derivation refuses more work on this conversation (HTTP 409).
        case conflict
    }

    /// The brief for `prompt`, continuing `conversation` when given; throws `Failure` by `deadline`.
    func brief(
        prompt: String, conversation: String?, clientMessageId: String, depth: String, deadline: ContinuousClock.Instant
    ) async throws(Failure) -> Brief {
        var body: [String: JSONValue] = [
            "prompt": .string(prompt), "mode": .string("agent"), "research_depth": .string(depth),
            "client_message_id": .string(clientMessageId),
        ]
        if let conversation {
            body["conversation_id"] = .string(conversation)
            body["message_mode"] = .string("steer")
        }
        let started = try await request("POST", "/api/explore", body: body, deadline: deadline)
        if let error = DerivationReading.machineText(started["error"]) { throw .machineError(error) }
        guard let (id, startStatus) = DerivationReading.startedConversation(started) else { throw .noBrief }
        return try await finish(id: id, status: startStatus, deadline: deadline)
    }

    /// The brief of run `id` started earlier: polled now, then as `brief` does.
    func resume(id: String, deadline: ContinuousClock.Instant) async throws(Failure) -> Brief {
        let summary = try await request(
            "GET", "/api/autoresearch?conversation_id=\(Self.escape(id))&summary=1", deadline: deadline)
        return try await finish(id: id, status: DerivationReading.polledStatus(summary), deadline: deadline)
    }

    /// Polls run `id` to a terminal status, then reads its display projection.
    private func finish(id: String, status initial: ResearchStatus, deadline: ContinuousClock.Instant)
        async throws(Failure) -> Brief
    {
        var status = initial
        while !DerivationReading.terminal(status) {
            // Another poll needs the interval and time for the request (and the brief's) itself.
            guard ContinuousClock.now + pollInterval + Self.requestReserve < deadline else {
                throw .stillRunning(id)
            }
            try? await Task.sleep(for: pollInterval)
            let summary = try await request(
                "GET", "/api/autoresearch?conversation_id=\(Self.escape(id))&summary=1", deadline: deadline)
            status = DerivationReading.polledStatus(summary)
        }
        let run = try await request(
            "GET", "/api/autoresearch?conversation_id=\(Self.escape(id))&display=1", deadline: deadline)
        let (phase, progress) = DerivationReading.progress(run)
        if status == .blocked {
            let reason = ResearchProjection.blockedReason(
                DerivationReading.blocker(run) ?? DerivationReading.briefText(run))
            return Brief(content: reason, status: .blocked, conversationId: id, phase: phase, progress: progress)
        }
        if let error = DerivationReading.machineText(run["error"]) { throw .machineError(error) }
        guard let content = DerivationReading.briefText(run) else { throw .noBrief }
        if let code = DerivationReading.machineText(.string(content)) { throw .machineError(code) }
        return Brief(content: content, status: status, conversationId: id, phase: phase, progress: progress)
    }

    private func request(
        _ method: String, _ path: String, body: [String: JSONValue]? = nil, deadline: ContinuousClock.Instant
    ) async throws(Failure) -> [String: JSONValue] {
        let left = deadline - .now
        guard left > .milliseconds(100) else { throw .unavailable("deadline") }
        var headers = [("Accept", "application/json"), ("Authorization", "Bearer \(token)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(
                HTTPClientRequest(
                    method: method, url: origin + path, headers: headers,
                    body: try body.map { Array(try JSONEncoder().encode($0)) }, timeout: left))
        } catch {
            throw .unavailable("\(error)")
        }
        let decoded = try? JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))
        guard (200..<300).contains(response.status) else {
            if response.status == 409 && method == "POST" { throw .conflict }
            if let code = DerivationReading.machineText(decoded?["error"])
                ?? DerivationReading.machineText(decoded?["code"])
            {
                throw .machineError(code)
            }
            throw .unavailable("HTTP \(response.status)")
        }
        guard let decoded else { throw .unavailable("not JSON") }
        return decoded
    }

    /// The least time left for one more poll to be worth starting.
    static let requestReserve: Duration = .milliseconds(750)

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? ""
    }
}
