import Contracts
import Crypto
import Foundation
import HTTPServer
import Runtime

/// Research chat (`/v1/agent/*`): signed-in users and guests (`X-Device-Id`); the chat and its stream spend the free
/// generation quota (402 when spent). Validated here, answered by the Research service, which owns the conversations
/// and shows each only to its owner (anyone else's id is a 404).
struct AgentRoutes: Sendable {
    let caller: ServiceCaller
    /// The chat turn's budget (Derivation, else OpenRouter's 25 s chain).
    let chatBudget: Duration
    let budget: Duration
    /// How often `POST /v1/agent/stream` sends a `ping` event while the turn is being answered.
    let heartbeat: Duration
    let quota: any GenerationQuota
    let logger: Logger

    var routes: [Route] {
        let quota = self.quota
        let guarded: Route.Guard = { caller, _ in (await quota.check(caller), []) }
        return [
            Route("POST", "/v1/agent/chat", auth: .optional, guard: guarded) { context in
                let command: AgentChatCommand
                switch Self.chat(context.request, owner: Self.owner(context.caller)) {
                case .success(let valid): command = valid
                case .failure(let response): return response
                }
                let response = await caller.call(
                    .research, AgentChatCommand.name, key: command.owner.key, command: command, budget: chatBudget,
                    requestId: context.requestId)
                await charge(response, owner: command.owner, requestId: context.requestId)
                return response
            },
            Route("POST", "/v1/agent/stream", auth: .optional, guard: guarded) { context in
                let command: AgentChatCommand
                switch Self.chat(context.request, owner: Self.owner(context.caller)) {
                case .success(let valid): command = valid
                case .failure(let response): return response
                }
                return stream(command, requestId: context.requestId)
            },
            Route("GET", "/v1/agent/threads", auth: .optional) { context in
                await threads(context, conversationId: nil, view: .thread)
            },
            Route("GET", "/v1/agent/threads/:id", auth: .optional) { context in
                await threads(context, conversationId: context.parameters["id"], view: .thread)
            },
            Route("GET", "/v1/agent/threads/:id/status", auth: .optional) { context in
                await threads(context, conversationId: context.parameters["id"], view: .status)
            },
            Route("GET", "/v1/agent/threads/:id/memo", auth: .optional) { context in
                Self.document(await threads(context, conversationId: context.parameters["id"], view: .memo))
            },
        ]
    }

    static func owner(_ caller: Caller) -> ResearchOwner {
        ResearchOwner(userId: caller.session?.userId, deviceId: caller.deviceId)
    }

    /// Counts an answered turn (200, or 202 while it runs) against the free tier; a replayed turn is free.
    private func charge(_ response: HTTPResponse, owner: ResearchOwner, requestId: String) async {
        guard response.status < 400,
            !response.headers.contains(where: { $0.0 == "X-Research-Turn" && $0.1 == "replayed" })
        else { return }
        do {
            try await quota.record(userId: owner.userId, deviceId: owner.deviceId, kind: "agent_chat")
        } catch {
            logger.warning("usage not recorded", [LogKeys.requestId: .string(requestId), LogKeys.error: "\(error)"])
        }
    }

    /// A 200 `ResearchDocument` reply as its bytes (`Content-Type`, `Content-Disposition: attachment`, `Cache-Control:
    /// private, no-store`); anything else as it came.
    static func document(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status == 200,
            let document = try? JSONDecoder().decode(ResearchDocument.self, from: Data(response.body)),
            let bytes = Data(base64Encoded: document.base64)
        else { return response }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", document.contentType), ("Cache-Control", "private, no-store"),
                ("Content-Disposition", "attachment; filename=\"\(document.fileName)\""),
            ], body: Array(bytes))
    }

    /// Server-sent events: `ping` every `heartbeat` while the Research service answers, then `article` (the
    /// `ResearchArticle`) and `done` (`{conversationId, threadId, clientMessageId, status}`), `done` alone while the
    /// run is still going (202), or `error` (the error body) then `done`. A client that leaves stops the pings.
    private func stream(_ command: AgentChatCommand, requestId: String) -> HTTPResponse {
        let stream = HTTPBodyStream()
        let (caller, budget, heartbeat) = (self.caller, chatBudget, self.heartbeat)
        Task {
            let answer = Task {
                await caller.call(
                    .research, AgentChatCommand.name, key: command.owner.key, command: command, budget: budget,
                    requestId: requestId)
            }
            let beats = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    if Task.isCancelled { return }
                    let sent = stream.write("event: ping\ndata: {\"ts\":\(Timestamp.nowMillis())}\n\n")
                    if !sent { return }
                }
            }
            let response = await answer.value
            beats.cancel()
            await charge(response, owner: command.owner, requestId: requestId)
            stream.write(AgentStreamEvents.events(for: response, clientMessageId: command.clientMessageId))
            stream.finish()
        }
        return .streaming(
            200,
            headers: [
                ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache, no-transform"),
                ("X-Accel-Buffering", "no"),
            ],
            stream: stream)
    }

    private func threads(_ context: RouteContext, conversationId: String?, view: AgentThreadsCommand.View) async
        -> HTTPResponse
    {
        let owner = Self.owner(context.caller)
        guard let key = owner.key else { return .error(.deviceIdRequired) }
        if let conversationId, !Self.validId(conversationId) { return .error(400, "invalid conversation id") }
        return await caller.call(
            .research, AgentThreadsCommand.name, key: key,
            command: AgentThreadsCommand(owner: owner, conversationId: conversationId, view: view),
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

    static let messageRequired = "valid message required (1–4000 chars)"

    static let depths: Set<String> = ["auto", "instant", "standard", "deep", "max"]

    /// `message` 1…4000 characters once trimmed; `ticker` a symbol; `conversationId` (or `threadId`) and
    /// `clientMessageId` 1…128 characters; `researchDepth` one of the schema's (default `auto`). Without a client
    /// message id the turn gets a fresh one (and a retry is a new turn).
    static func chat(_ request: HTTPRequest, owner: ResearchOwner) -> Result<AgentChatCommand, HTTPResponse> {
        guard owner.key != nil else { return .failure(.error(.deviceIdRequired)) }
        guard case .success(let body) = JSONBody.decode(ChatBody.self, from: request, error: "") else {
            return .failure(.error(400, Self.messageRequired))
        }
        let message = body.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...4000).contains(message.count) else {
            return .failure(.error(400, Self.messageRequired))
        }
        var ticker: String?
        if let raw = body.ticker {
            guard let valid = ResearchInput.ratingTicker(raw) else { return .failure(.error(400, "invalid ticker")) }
            ticker = valid
        }
        let conversationId = body.conversationId ?? body.threadId
        // Both checked: `threadId` is an alias, and one that is sent must be a valid id even when unused.
        if [body.conversationId, body.threadId].contains(where: { $0.map { !validId($0) } ?? false }) {
            return .failure(.error(400, "invalid conversationId"))
        }
        if let id = body.clientMessageId, !validId(id) {
            return .failure(.error(400, "clientMessageId must be 1-128 chars"))
        }
        let depth = body.researchDepth ?? "auto"
        guard depths.contains(depth) else { return .failure(.error(400, "invalid researchDepth")) }
        return .success(
            AgentChatCommand(
                owner: owner, message: message, ticker: ticker, conversationId: conversationId,
                clientMessageId: body.clientMessageId ?? "cm_" + Digest.randomHex(bytes: 12), researchDepth: depth))
    }

    static func validId(_ id: String) -> Bool {
        (1...128).contains(id.count) && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
    }
}
