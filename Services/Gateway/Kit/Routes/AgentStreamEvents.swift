import Contracts
import Foundation
import HTTPServer

/// The closing server-sent events of `POST /v1/agent/stream`, from the chat's answer: `article` then `done` for an
/// answered turn, `done` alone while its run is still going (202), `error` (the error body with the conversation and
/// client message ids) for anything else.
enum AgentStreamEvents {
    static func events(for response: HTTPResponse, clientMessageId: String) -> String {
        var body = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(response.body))) ?? [:]
        guard response.status == 200 || response.status == 202 else {
            if body["error"] == nil { body["error"] = .string("research failed") }
            body["clientMessageId"] = .string(clientMessageId)
            return event("error", .object(body))
        }
        var done: [String: JSONValue] = ["clientMessageId": .string(clientMessageId)]
        for key in ["conversationId", "threadId", "status"] { done[key] = body[key] }
        let article = response.status == 200 ? body["article"].map { event("article", $0) } ?? "" : ""
        return article + event("done", .object(done))
    }

    /// One event: its name and its data on a single line.
    static func event(_ name: String, _ data: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let json = (try? encoder.encode(data)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\ndata: \(json.replacingOccurrences(of: "\n", with: " "))\n\n"
    }
}
