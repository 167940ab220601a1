import Contracts
import FoundationEssentials
import Messaging
import Postgres
import Runtime

/// Answers the `/v1/push/*` commands the gateway sends (docs/COMPATIBILITY.md#push-routes, #push-semantics). The
/// gateway already validated the bodies; values are checked again here because any producer can write to the command
/// topic. Transient database errors are retried with backoff inside the command's budget.
public struct PushCommands: Sendable {
    let store: PushStore
    let logger: Logger
    /// Called after the reply for a location heartbeat of an installation, with its merged prefs, when the scheduler
    /// is enabled; retried by the command runner until it returns.
    let onHeartbeat: Heartbeat?
    public typealias Heartbeat =
        @Sendable (_ tokenId: String, _ userId: String, _ prefs: [String: JSONValue]) async throws -> Void

    public init(store: PushStore, logger: Logger, onHeartbeat: Heartbeat? = nil) {
        self.store = store
        self.logger = logger
        self.onHeartbeat = onHeartbeat
    }

    @Sendable public func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case PushRegisterCommand.name:
            let c: PushRegisterCommand = try decode(command)
            guard let token = PushWire.expoToken(c.token), ["ios", "android"].contains(c.platform) else {
                return .error(.validExpoTokenRequired)
            }
            let registration = try await retrying(command) {
                try await store.register(userId: c.userId, expoToken: token, platform: c.platform, deviceId: c.deviceId)
            }
            return .json(200, PushRegisterResponse(id: registration.id, prefs: registration.prefs))

        case PushPrefsReadCommand.name:
            let c: PushPrefsReadCommand = try decode(command)
            guard let tokenId = PushWire.tokenId(c.tokenId) else { return .error(.validTokenIdRequired) }
            guard
                let prefs = try await retrying(
                    command, { try await store.readPrefs(userId: c.userId, tokenId: tokenId) })
            else { return .json(200, PushPrefsReadResponse.empty) }
            return .json(200, PushPrefsReadResponse(prefs: prefs, tokenId: tokenId))

        case PushPrefsWriteCommand.name:
            let c: PushPrefsWriteCommand = try decode(command)
            guard let tokenId = PushWire.tokenId(c.tokenId), let patch = PushWire.preferencePatch(c.patch) else {
                return .error(.tokenIdAndPrefsRequired)
            }
            guard
                let prefs = try await retrying(
                    command, { try await store.writePrefs(userId: c.userId, tokenId: tokenId, patch: patch) })
            else { return .error(.tokenNotFound) }
            let reply = Reply.json(200, PushPrefsResponse(prefs: prefs))
            guard PushWire.isHeartbeat(patch), let onHeartbeat else { return reply }
            let userId = c.userId
            return reply.then { try await onHeartbeat(tokenId, userId, prefs) }

        case PushDeleteTokenCommand.name:
            let c: PushDeleteTokenCommand = try decode(command)
            guard let tokenId = PushWire.tokenId(c.tokenId) else { return .error(.validTokenIdRequired) }
            guard try await retrying(command, { try await store.deleteToken(userId: c.userId, tokenId: tokenId) })
            else {
                return .error(.tokenNotFound)
            }
            return Reply(status: 204, body: [])

        case PushRevokeDeviceCommand.name:
            let c: PushRevokeDeviceCommand = try decode(command)
            guard let token = PushWire.expoToken(c.token), let tokenId = PushWire.tokenId(c.tokenId) else {
                return .error(.validTokenIdAndExpoTokenRequired)
            }
            return revocation(
                try await retrying(command) { try await store.revokeDevice(expoToken: token, tokenId: tokenId) })

        case PushRevokeCurrentDeviceCommand.name:
            let c: PushRevokeCurrentDeviceCommand = try decode(command)
            guard let token = PushWire.expoToken(c.token) else {
                return .error(.validExpoTokenRequired)
            }
            return revocation(
                try await retrying(command) { try await store.revokeCurrentDevice(userId: c.userId, expoToken: token) })

        case PushRevokeExpiredSessionDeviceCommand.name:
            let c: PushRevokeExpiredSessionDeviceCommand = try decode(command)
            let token = c.token.flatMap { PushWire.expoToken($0) }
            let tokenId = c.tokenId.flatMap { PushWire.tokenId($0) }
            guard !c.subject.isEmpty, token != nil || tokenId != nil,
                c.token == nil || token != nil, c.tokenId == nil || tokenId != nil
            else { return .error(.validExpoTokenOrTokenIdRequired) }
            return revocation(
                try await retrying(command) {
                    try await store.revokeExpiredSessionDevice(subject: c.subject, expoToken: token, tokenId: tokenId)
                })

        default:
            throw CommandDecodingError("unknown command \(command.name)")
        }
    }

    private func revocation(_ outcome: PushRevocationOutcome) -> Reply {
        .json(outcome.httpStatus, PushDeviceRevocationResponse(outcome))
    }

    private func decode<T: Decodable>(_ command: IncomingCommand) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(command.body))
        } catch {
            throw CommandDecodingError("\(command.name): undecodable body")
        }
    }

    /// Runs `work`, retrying retriable Postgres errors with backoff while the command's budget lasts.
    private func retrying<T: Sendable>(_ command: IncomingCommand, _ work: @Sendable () async throws -> T) async throws
        -> T
    {
        var attempt = 0
        while true {
            do {
                return try await work()
            } catch let error as PostgresError where error.isRetriable {
                attempt += 1
                let delay = Duration.milliseconds(50 << min(attempt, 5))
                guard attempt < 5, command.remaining > delay + .milliseconds(250) else { throw error }
                logger.warning(
                    "push command retrying",
                    [LogKeys.command: .string(command.name), LogKeys.error: .string("\(error)")])
                try await Task.sleep(for: delay)
            }
        }
    }
}
