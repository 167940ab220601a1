import Contracts
import Foundation
import Messaging
import ResearchCore
import Runtime
import ServiceKit

/// The Research service's commands: a chat turn (stored, answered, stored again, then announced to a signed-in
/// owner's devices as `agent_response`) and reads of the owner's threads, their status and memo. A turn whose
/// Derivation run outlives its share of the budget answers 202; reading the thread later resumes the run and stores
/// its answer. Another owner's conversation is "not found".
struct ResearchCommands: Sendable {
    let store: ConversationStore
    let answerer: ResearchAnswerer
    let memos: MemoRenderer
    let packets: PacketCommands
    let graph: GraphCommands
    let cockpit: CockpitRanker
    let pulse: PulseCommands
    let environment: EnvironmentCommands
    let synthesis: SynthesisCommands
    let context: ServiceContext

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case AgentChatCommand.name: try await chat(decode(command), deadline: command.deadline)
        case AgentThreadsCommand.name: try await read(decode(command), deadline: command.deadline)
        case PacketBuildCommand.name: try await packets.build(decode(command))
        case PacketReadCommand.name: try await packets.read(decode(command))
        case GraphCommand.name: try await graph.get(decode(command), deadline: command.deadline)
        case CockpitCommand.name: await cockpit.rank(try decode(command), deadline: command.deadline)
        case PulseCommand.name: try await pulse.get(decode(command))
        case EnvironmentCommand.name: try await environment.get(decode(command), deadline: command.deadline)
        case SynthesisCommand.name: try await synthesis.get(decode(command), deadline: command.deadline)
        default: throw CommandDecodingError("unknown command \(command.name)")
        }
    }

    private func decode<T: Decodable>(_ command: IncomingCommand) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(command.body))
        } catch {
            throw CommandDecodingError("\(command.name): \(error)")
        }
    }

    private func chat(_ command: AgentChatCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        guard let owner = command.owner.key else { return .error(.deviceIdRequired) }
        try await store.claim(command.owner)
        // A retry of a stored message: its answer, or (when the first attempt died before answering) an answer now.
        var stored = try await store.turn(userId: owner, clientMessageId: command.clientMessageId)
        if let existing = stored, existing.answer != nil {
            return try await reply(command, owner: owner, replayed: true)
        }
        var derivationId: String?
        if stored == nil {
            if let conversation = command.conversationId {
                let owned = try await store.owned(userId: owner, conversationId: conversation)
                guard owned.found else {
                    return .json(404, ResearchProjection.notFoundBody(conversationId: conversation))
                }
                derivationId = owned.derivationId
            }
            stored = try await store.ask(
                userId: owner, conversationId: command.conversationId, message: command.message,
                ticker: command.ticker, clientMessageId: command.clientMessageId)
        }
        guard let turn = stored else { return .error(.researchStoreUnavailable) }
        // A retry with the same client message id may name another conversation: the stored turn wins.
        if turn.answer != nil { return try await reply(command, owner: owner, replayed: true) }
        let outcome = await answerer.answer(
            message: turn.question.content, ticker: turn.ticker, derivationId: turn.derivationId ?? derivationId,
            resuming: turn.awaitingRun ? turn.derivationId : nil, clientMessageId: command.clientMessageId,
            depth: command.researchDepth, deadline: deadline - .milliseconds(750))
        switch outcome {
        case .conflict:
            return .json(
                409,
                [
                    "error": "This research conversation cannot accept more work", "code": "research_conflict",
                    "conversationId": turn.conversationId,
                ])
        case .pending(let run):
            try await store.awaitRun(
                conversationId: turn.conversationId, questionId: turn.question.id, derivationId: run)
            return try await reply(command, owner: owner, replayed: false)
        case .answered(let answer):
            try await store.answer(
                userId: owner, conversationId: turn.conversationId, questionId: turn.question.id,
                content: answer.content, provider: answer.provider, status: answer.status,
                derivationId: answer.derivationId, phase: answer.phase, progress: answer.progress)
            return try await reply(command, owner: owner, replayed: false)
        }
    }

    /// The chat's answer for the stored turn of `command`: 200 with the answer, 202 while its run goes on, 409 when
    /// it is blocked; an answer (not the plain sentence) is pushed to a signed-in owner after the reply.
    private func reply(_ command: AgentChatCommand, owner: String, replayed: Bool) async throws -> Reply {
        guard let turn = try await store.turn(userId: owner, clientMessageId: command.clientMessageId) else {
            return .error(.researchStoreUnavailable)
        }
        let headers = [("X-Research-Turn", replayed ? "replayed" : "new")]
        let userMessage = ResearchProjection.userMessage(
            turn.question, clientMessageId: command.clientMessageId, ticker: turn.ticker)
        guard let answer = turn.answer else {
            let conversation = ResearchConversationRef(id: turn.conversationId, status: .running, pdfURL: nil)
            let pending = AgentChatResponse(
                conversation: conversation, clientMessageId: command.clientMessageId, ticker: turn.ticker,
                article: ResearchProjection.pendingArticle(
                    conversationId: turn.conversationId, createdAt: turn.question.createdAt, ticker: turn.ticker),
                userMessage: userMessage, pending: true)
            return .json(202, pending, headers: headers)
        }
        if turn.status == .blocked {
            return .json(
                409, ResearchProjection.blockedBody(reason: answer.content, conversationId: turn.conversationId),
                headers: headers)
        }
        let answered = answer.provider != "unavailable"
        let conversation = ResearchConversationRef(
            id: turn.conversationId, status: turn.status,
            pdfURL: ResearchProjection.memoPath(conversationId: turn.conversationId, answered: answered))
        let response = AgentChatResponse(
            conversation: conversation, clientMessageId: command.clientMessageId, ticker: turn.ticker,
            article: ResearchProjection.decorated(answer, ticker: turn.ticker, status: turn.status),
            userMessage: userMessage, pending: false)
        return announce(
            .json(200, response, headers: headers), owner: command.owner, answer: answer,
            conversationId: turn.conversationId)
    }

    /// `reply`, then (for a signed-in owner and a real answer) the `agent_response` push, once per answer.
    private func announce(_ reply: Reply, owner: ResearchOwner, answer: ResearchArticle, conversationId: String)
        -> Reply
    {
        guard let userId = owner.userId, answer.provider != "unavailable" else { return reply }
        let push = ResearchWriting.push(userId: userId, conversationId: conversationId, answer: answer)
        let publisher = context.publisher
        return reply.then {
            try await publisher.deliver(
                topic: Topics.pushRequests, key: userId, value: Array(try JSONEncoder().encode(push)), until: nil)
        }
    }

    /// How long a read waits on a pending run: one poll, and the finished run's brief when it is done.
    static let readPoll: Duration = .seconds(2)

    private func read(_ command: AgentThreadsCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        guard let owner = command.owner.key else { return .error(.deviceIdRequired) }
        try await store.claim(command.owner)
        guard let id = command.conversationId else {
            let threads = try await store.threads(userId: owner).map(\.summary)
            return .json(200, AgentThreadsResponse(threads: threads))
        }
        let resumed = try await resume(owner: command.owner, key: owner, conversationId: id, deadline: deadline)
        guard var thread = try await store.thread(userId: owner, conversationId: id) else {
            return .json(404, ResearchProjection.notFoundBody(conversationId: nil))
        }
        let reply: Reply
        switch command.view {
        case .status:
            reply = .json(
                200,
                AgentConversationStatus(
                    conversationId: id, status: thread.summary.status, phase: thread.summary.phase,
                    progress: thread.progress, preview: thread.summary.preview, updatedAt: thread.summary.updatedAt))
        case .thread:
            let status = thread.summary.status
            thread.summary.messages = thread.summary.messages?.map {
                ResearchProjection.decorated($0, ticker: thread.ticker, status: status)
            }
            let memo = ResearchProjection.memoPath(conversationId: id, answered: thread.hasMemo)
            thread.summary.memoUrl = memo
            thread.summary.conversation = ResearchConversationRef(id: id, status: status, pdfURL: memo)
            reply = .json(200, AgentThreadResponse(thread: thread.summary))
        case .memo:
            guard thread.hasMemo else { return .json(404, ["error": "research memo not found"]) }
            reply = await memos.reply(thread.summary)
        }
        guard let resumed else { return reply }
        return announce(reply, owner: command.owner, answer: resumed, conversationId: id)
    }

    /// When `conversationId` awaits a Derivation run, polls it once more within `deadline` and stores its answer
    /// (no OpenRouter fallback in a read: a failed run stores the plain sentence). Answers the stored answer.
    private func resume(owner: ResearchOwner, key: String, conversationId: String, deadline: ContinuousClock.Instant)
        async throws -> ResearchArticle?
    {
        guard let awaiting = try await store.awaiting(userId: key, conversationId: conversationId),
            let question = try await store.question(awaiting.questionId)
        else { return nil }
        let outcome = await answerer.answer(
            message: question.content, ticker: nil, derivationId: awaiting.derivationId,
            resuming: awaiting.derivationId, clientMessageId: question.clientMessageId, depth: "auto", fallback: false,
            deadline: min(deadline - .milliseconds(500), .now + Self.readPoll))
        guard case .answered(let answer) = outcome else { return nil }
        try await store.answer(
            userId: key, conversationId: conversationId, questionId: awaiting.questionId, content: answer.content,
            provider: answer.provider, status: answer.status, derivationId: answer.derivationId, phase: answer.phase,
            progress: answer.progress)
        return try await store.turn(userId: key, clientMessageId: question.clientMessageId)?.answer
    }
}
