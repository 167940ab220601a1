import Contracts
import Crypto
import Foundation
import HTTPServer
import Runtime

/// Research chat (`/v1/agent/*`, bearer): validated here, answered by the Research service, which owns the
/// conversations and shows each only to its owner (another user's id is a 404).
struct AgentRoutes: Sendable {
    let caller: ServiceCaller
    /// The chat turn's budget (Derivation, else OpenRouter's 25 s chain).
    let chatBudget: Duration
    let budget: Duration
    /// How often `POST /v1/agent/stream` sends a heartbeat event while the turn is being answered.
    let heartbeat: Duration

    var routes: [Route] {
        [
            Route("POST", "/v1/agent/chat", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let command: AgentChatCommand
                switch Self.chat(context.request, userId: userId) {
                case .success(let valid): command = valid
                case .failure(let response): return response
                }
                return await caller.call(
                    .research, AgentChatCommand.name, key: userId, command: command, budget: chatBudget,
                    requestId: context.requestId)
            },
            Route("POST", "/v1/agent/stream", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let command: AgentChatCommand
                switch Self.chat(context.request, userId: userId) {
                case .success(let valid): command = valid
                case .failure(let response): return response
                }
                return stream(command, requestId: context.requestId)
            },
            Route("GET", "/v1/agent/threads", auth: .required) { context in
                await threads(context, conversationId: nil, statusOnly: false)
            },
            Route("GET", "/v1/agent/threads/:id", auth: .required) { context in
                await threads(context, conversationId: context.parameters["id"], statusOnly: false)
            },
            Route("GET", "/v1/agent/threads/:id/status", auth: .required) { context in
                await threads(context, conversationId: context.parameters["id"], statusOnly: true)
            },
        ]
    }

    /// Server-sent events: `heartbeat` every `heartbeat` while the Research service answers, then `message` (the
    /// `AgentChatResponse`) or `error` (`{"error":…}`), then `done`. A client that leaves stops the heartbeats.
    private func stream(_ command: AgentChatCommand, requestId: String) -> HTTPResponse {
        let stream = HTTPBodyStream()
        let (caller, budget, heartbeat) = (self.caller, chatBudget, self.heartbeat)
        Task {
            let answer = Task {
                await caller.call(
                    .research, AgentChatCommand.name, key: command.userId, command: command, budget: budget,
                    requestId: requestId)
            }
            let beats = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    if Task.isCancelled { return }
                    let sent = stream.write("event: heartbeat\ndata: {\"ts\":\(Timestamp.nowMillis())}\n\n")
                    if !sent { return }
                }
            }
            let response = await answer.value
            beats.cancel()
            let event = response.status == 200 ? "message" : "error"
            let data = String(decoding: response.body, as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
            stream.write("event: \(event)\ndata: \(data)\n\nevent: done\ndata: {}\n\n")
            stream.finish()
        }
        return .streaming(
            200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
            ],
            stream: stream)
    }

    private func threads(_ context: RouteContext, conversationId: String?, statusOnly: Bool) async -> HTTPResponse {
        guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
        if let conversationId, !Self.validId(conversationId) { return .error(400, "invalid conversation id") }
        return await caller.call(
            .research, AgentThreadsCommand.name, key: userId,
            command: AgentThreadsCommand(userId: userId, conversationId: conversationId, statusOnly: statusOnly),
            budget: budget, requestId: context.requestId)
    }

    private struct ChatBody: Decodable {
        let message: String
        let ticker: String?
        let conversationId: String?
        let threadId: String?
        let clientMessageId: String?
        let researchDepth: String?
    }

    static let depths: Set<String> = ["auto", "instant", "standard", "deep", "max"]

    /// `message` 1…4000 characters once trimmed; `ticker` a symbol; `conversationId` (or `threadId`) and
    /// `clientMessageId` 1…128 characters; `researchDepth` one of the schema's (default `auto`). Without a client
    /// message id the turn gets a fresh one (and a retry is a new turn).
    static func chat(_ request: HTTPRequest, userId: String) -> Result<AgentChatCommand, HTTPResponse> {
        guard case .success(let body) = JSONBody.decode(ChatBody.self, from: request, error: "") else {
            return .failure(.error(.messageRequired))
        }
        let message = body.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...4000).contains(message.count) else {
            return .failure(.error(.messageRequired))
        }
        var ticker: String?
        if let raw = body.ticker {
            guard let valid = ResearchInput.ratingTicker(raw) else { return .failure(.error(400, "invalid ticker")) }
            ticker = valid
        }
        let conversationId = body.conversationId ?? body.threadId
        if let conversationId, !validId(conversationId) { return .failure(.error(400, "invalid conversationId")) }
        if let id = body.clientMessageId, !validId(id) {
            return .failure(.error(400, "clientMessageId must be 1-128 chars"))
        }
        let depth = body.researchDepth ?? "auto"
        guard depths.contains(depth) else { return .failure(.error(400, "invalid researchDepth")) }
        return .success(
            AgentChatCommand(
                userId: userId, message: message, ticker: ticker, conversationId: conversationId,
                clientMessageId: body.clientMessageId ?? "cm_" + Digest.randomHex(bytes: 12), researchDepth: depth))
    }

    static func validId(_ id: String) -> Bool {
        (1...128).contains(id.count) && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
    }
}
