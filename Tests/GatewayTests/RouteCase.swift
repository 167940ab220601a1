import Contracts
import HTTPServer
import Messaging
import Testing

@testable import GatewayKit

/// One request and what the gateway must make of it: a rejection (status and exact error string, no command sent)
/// or exactly one command (service, name, partition key, and the body fields listed).
struct RouteCase: Sendable, CustomTestStringConvertible {
    enum Outcome: Sendable {
        case rejected(Int, String)
        case command(ServiceName, String, key: String?, fields: [String: JSONValue] = [:])
    }

    var method: String
    var path: String
    var query: String?
    var body: String?
    /// Sends a valid bearer of the known user.
    var signedIn: Bool
    var headers: [Header]
    var outcome: Outcome

    struct Header: Sendable {
        let name: String
        let value: String
    }

    init(
        _ method: String, _ path: String, query: String? = nil, body: String? = nil, signedIn: Bool = false,
        headers: [Header] = [], _ outcome: Outcome
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.signedIn = signedIn
        self.headers = headers
        self.outcome = outcome
    }

    var testDescription: String {
        let target = path + (query.map { "?" + $0 } ?? "")
        switch outcome {
        case .rejected(let status, let message): return "\(method) \(target) → \(status) \(message)"
        case .command(_, let name, _, _): return "\(method) \(target) → \(name)"
        }
    }

    /// Sends the request to a fresh gateway and checks the outcome.
    func check() async throws {
        let gateway = try GatewayUnderTest()
        var headers = self.headers.map { ($0.name, $0.value) }
        if signedIn { headers.append(("Authorization", try gateway.bearer())) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response = await gateway.send(method, path, query: query, headers: headers, body: body)
        let sent = gateway.transport.commands
        switch outcome {
        case .rejected(let status, let message):
            #expect(response.status == status)
            #expect(response.errorMessage == message)
            #expect(sent.isEmpty)
        case .command(let service, let name, let key, let fields):
            #expect(response.status == 200)
            #expect(sent.count == 1)
            guard let command = sent.first else { return }
            #expect(command.service == service)
            #expect(command.name == name)
            #expect(command.key == key)
            #expect(!command.requestId.isEmpty)
            let body = command.fields
            for (field, value) in fields { #expect(body[field] == value, "field \(field)") }
        }
    }
}

/// Shorthands for the expected body fields.
func s(_ value: String) -> JSONValue { .string(value) }
func n(_ value: Double) -> JSONValue { .number(value) }
func b(_ value: Bool) -> JSONValue { .bool(value) }

let user = GatewayUnderTest.userId
