import Contracts
import Foundation
import Messaging
import ResearchCore
import Runtime
import ServiceKit

/// The Research service's commands: a chat turn (stored, answered, stored again, then announced to the owner's
/// devices as `agent_response`) and reads of the owner's threads. Another user's conversation is "not found".
struct ResearchCommands: Sendable {
    let store: ConversationStore
    let answerer: ResearchAnswerer
    let context: ServiceContext

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case AgentChatCommand.name: try await chat(decode(command), deadline: command.deadline)
        case AgentThreadsCommand.name: try await threads(decode(command))
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
        // A retry of a stored message: its answer, or (when the first attempt died before answering) an answer now.
        var stored = try await store.turn(userId: command.userId, clientMessageId: command.clientMessageId)
        if let existing = stored, let answer = existing.answer {
            return .json(200, response(existing, answer: answer, clientMessageId: command.clientMessageId))
        }
        var derivationId: String?
        if stored == nil {
            if let conversation = command.conversationId {
                let owned = try await store.owned(userId: command.userId, conversationId: conversation)
                guard owned.found else { return .error(.conversationNotFound) }
                derivationId = owned.derivationId
            }
            stored = try await store.ask(
                userId: command.userId, conversationId: command.conversationId, message: command.message,
                ticker: command.ticker, clientMessageId: command.clientMessageId)
        }
        guard let turn = stored else { return .error(.researchStoreUnavailable) }
        // A retry with the same client message id may name another conversation: the stored turn wins.
        if let answer = turn.answer {
            return .json(200, response(turn, answer: answer, clientMessageId: command.clientMessageId))
        }
        let answer = await answerer.answer(
            message: turn.question.content, ticker: turn.ticker, derivationId: turn.derivationId ?? derivationId,
            clientMessageId: command.clientMessageId, depth: command.researchDepth,
            deadline: deadline - .milliseconds(750))
        try await store.answer(
            userId: command.userId, conversationId: turn.conversationId, questionId: turn.question.id,
            content: answer.content, provider: answer.provider, status: answer.status, derivationId: answer.derivationId
        )
        guard let answered = try await store.turn(userId: command.userId, clientMessageId: command.clientMessageId),
            let reply = answered.answer
        else { return .error(.researchStoreUnavailable) }
        let push = ResearchWriting.push(userId: command.userId, conversationId: answered.conversationId, answer: reply)
        let publisher = context.publisher
        return Reply.json(200, response(answered, answer: reply, clientMessageId: command.clientMessageId)).then {
            if reply.provider != "unavailable" {
                try await publisher.deliver(
                    topic: Topics.pushRequests, key: command.userId, value: Array(try JSONEncoder().encode(push)),
                    until: nil)
            }
        }
    }

    private func response(_ turn: ConversationStore.Turn, answer: ResearchArticle, clientMessageId: String)
        -> AgentChatResponse
    {
        AgentChatResponse(
            conversationId: turn.conversationId, clientMessageId: clientMessageId, status: turn.status,
            ticker: turn.ticker, article: answer)
    }

    private func threads(_ command: AgentThreadsCommand) async throws -> Reply {
        guard let id = command.conversationId else {
            return .json(200, AgentThreadsResponse(threads: try await store.threads(userId: command.userId)))
        }
        guard let thread = try await store.thread(userId: command.userId, conversationId: id) else {
            return .error(.conversationNotFound)
        }
        if command.statusOnly {
            return .json(
                200, AgentConversationStatus(conversationId: id, status: thread.status, updatedAt: thread.updatedAt))
        }
        return .json(200, AgentThreadResponse(thread: thread))
    }
}
