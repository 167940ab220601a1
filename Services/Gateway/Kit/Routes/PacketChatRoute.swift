import Contracts
import Foundation
import HTTPServer
import ResearchCore

/// `POST /v1/prism/chat` and `/v1/situate/chat` (and under the aliases): one question about the stored packet,
/// answered by the engine through the Rating service. Needs an identity (a session or `X-Device-Id`, else 400) and
/// passes the chat limiter before the body is read; spends no generation quota.
struct PacketChatRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    /// Nil when limits are off.
    let limiter: PacketChatLimiter?

    func route(_ kind: PacketKind, prefix: String) -> Route {
        let engine: ResearchEngine = kind == .prism ? .prism : .situate
        let limiter = self.limiter
        let turn: Route.Guard = { who, _ in
            guard let identity = Self.identity(who) else { return (.error(.deviceIdRequired), []) }
            return (await limiter?.take(engine, identity: identity), [])
        }
        return Route("POST", prefix + "/chat", auth: .optional, guard: turn) { context in
            switch PacketChatInput.command(Data(context.request.body), engine: engine) {
            case .failure(let response): return response
            case .success(let command):
                return await caller.call(
                    .rating, PacketChatCommand.name, key: command.ticker, command: command, budget: budget,
                    requestId: context.requestId)
            }
        }
    }

    /// `u:<user id>`, else `d:<X-Device-Id>`, else nil.
    static func identity(_ caller: Caller) -> String? {
        if let user = caller.session?.userId { return "u:" + user }
        return caller.deviceId.map { "d:" + $0 }
    }
}

/// The chat body: `{ticker (1…16), message (1…4000), conversationId?|conversation_id? (1…128), history? (≤ 50 of
/// {role: user|assistant, content (1…20000)})}`, lengths in Unicode scalars; other keys are ignored. A body that breaks
/// these → 400 `ticker and message (1–4000 chars) required`; a ticker that is no symbol → 400 `invalid ticker`.
enum PacketChatInput {
    static func command(_ body: Data, engine: ResearchEngine) -> Result<PacketChatCommand, HTTPResponse> {
        let kind: PacketKind = engine == .prism ? .prism : .situate
        func length(_ value: JSONValue?, _ range: ClosedRange<Int>) -> String? {
            guard case .string(let s)? = value, range.contains(s.unicodeScalars.count) else { return nil }
            return s
        }
        let bad = PacketInput.badRequest(kind, "ticker and message (1–4000 chars) required")
        guard case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: body),
            let rawTicker = length(fields["ticker"], 1...16), let message = length(fields["message"], 1...4000)
        else { return .failure(bad) }
        // Either spelling, each checked when present; the camel-case one wins.
        var conversationId: String?
        for key in ["conversation_id", "conversationId"] {
            guard let value = fields[key] else { continue }
            guard let id = length(value, 1...128) else { return .failure(bad) }
            conversationId = id
        }
        var history: [PacketChatCommand.Turn] = []
        if let value = fields["history"] {
            guard case .array(let turns) = value, turns.count <= 50 else { return .failure(bad) }
            for turn in turns {
                guard case .object(let t) = turn, case .string(let role)? = t["role"],
                    ["user", "assistant"].contains(role),
                    let content = length(t["content"], 1...20000)
                else { return .failure(bad) }
                history.append(PacketChatCommand.Turn(role: role, content: content))
            }
        }
        guard let ticker = PacketInput.ticker(rawTicker) else {
            return .failure(PacketInput.badRequest(kind, "invalid ticker"))
        }
        return .success(
            PacketChatCommand(
                engine: engine, ticker: ticker, message: message, conversationId: conversationId, history: history))
    }
}
