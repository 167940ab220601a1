import Contracts
import HTTPServer
import Messaging
import Runtime

/// Sends a route's command to its service over Kafka and turns the reply (or its absence) into an HTTP response:
/// no broker or too many requests waiting → 503 at once (the command was not carried out); no reply within the
/// route's budget → 504 (its outcome is unknown). Commands in `IdempotentReads` may be hedged.
struct ServiceCaller: Sendable {
    let client: any CommandTransport
    /// Sent with every 503: the condition (no broker, overload) is short-lived, so a client may retry soon.
    static let retryAfter = [("Retry-After", "1")]

    func call<Command: Encodable>(
        _ service: ServiceName, _ name: String, key: String?, command: Command, budget: Duration, requestId: String
    ) async -> HTTPResponse {
        guard let body = try? WireJSON.encode(command) else { return .error(.internalError) }
        let outgoing = OutgoingCommand(
            service: service, name: name, key: key, body: body, requestId: requestId,
            isIdempotentRead: IdempotentReads.commands.contains(name))
        do {
            let reply = try await client.request(outgoing, budget: budget)
            // JSON unless the service named its own type (a stored photo is `image/jpeg`).
            let typed = reply.headers.contains { $0.0.lowercased() == "content-type" }
            return HTTPResponse(
                status: reply.status, headers: (typed ? [] : [("Content-Type", "application/json")]) + reply.headers,
                body: reply.body)
        } catch {
            switch error {
            case .unavailable: return .error(503, "\(service.rawValue) service unavailable", headers: Self.retryAfter)
            case .timedOut: return .error(504, "\(service.rawValue) service timed out")
            }
        }
    }
}

/// Sends one command to its service and awaits the reply: `RequestReplyClient` in the binary, a recorder in tests.
package protocol CommandTransport: Sendable {
    func request(_ command: OutgoingCommand, budget: Duration) async throws(RequestError) -> Reply
}

extension RequestReplyClient: CommandTransport {}
