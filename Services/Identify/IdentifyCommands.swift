import Contracts
import FoundationEssentials
import IdentifyCore
import Kafka
import Messaging
import Runtime
import ServiceKit

/// Routes Identify's commands to their handlers and publishes their events.
struct IdentifyCommands: Sendable {
    let identifier: PhotoIdentifier
    let finds: FindsCommands
    let effects: IdentifyEffects
    let photos: PhotoClaims
    let progress: ProgressCommands
    let play: PlayCommands
    let rivalries: RivalryCommands
    let closer: RivalryCloser
    let companyPhotos: PhotoCommands

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case IdentifyPhotoCommand.name:
            try await identify(decode(command), deadline: command.deadline, delivery: Self.delivery(command))
        case IdentifyEffectsCommand.name: effects.handle(try decode(command), delivery: Self.delivery(command))
        case ResolveComparableCommand.name: await identifier.resolveComparable(try decode(command))
        case ListFindsCommand.name: try await finds.list(decode(command))
        case ReplayFindsCommand.name: try await finds.replay(decode(command), awardKey: Self.delivery(command))
        case DexCommand.name: try await finds.dex(decode(command))
        case ProgressCommand.name: try await progress.progress(decode(command))
        case UniverseSummaryCommand.name: try await progress.universe(decode(command), deadline: command.deadline)
        case QuestsCommand.name: try await play.daily(decode(command))
        case WeeklyQuestsCommand.name: try await play.weekly(decode(command))
        case CurrentEventCommand.name: play.currentEvent()
        case WeeklyScoresCommand.name: try await play.weeklyScores(decode(command))
        case TerritoryFindsCommand.name: try await play.territoryFinds(decode(command))
        case RivalryCommandName.list: try await rivalries.list(decode(command))
        case RivalryCommandName.create: try await rivalries.create(decode(command), deadline: command.deadline)
        case RivalryCommandName.pick: try await rivalries.pick(decode(command))
        case RivalryCommandName.delete: try await rivalries.delete(decode(command))
        case PhotoCommandName.submit: try await companyPhotos.submit(decode(command))
        case PhotoCommandName.gallery: try await companyPhotos.gallery(decode(command))
        case PhotoCommandName.vote: try await companyPhotos.vote(decode(command))
        case PhotoCommandName.delete: try await companyPhotos.delete(decode(command))
        case PhotoCommandName.image: try await companyPhotos.image(decode(command))
        case RivalryCommandName.close:
            try await closer.close(
                at: RivalryClose.slotInstant(command.message.header("mv-slot")) ?? Date(), deadline: command.deadline)
        default: throw CommandDecodingError("unknown command \(command.name)")
        }
    }

    /// Names one command record the same way on every redelivery: its position on its topic (with the request id,
    /// which a client may choose, only as a readable prefix).
    static func delivery(_ command: IncomingCommand) -> String {
        let record = command.message
        return "\(command.requestId ?? "-")@\(record.topic):\(record.partition):\(record.offset)"
    }

    private func decode<T: Decodable>(_ command: IncomingCommand) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(command.body))
        } catch {
            throw CommandDecodingError("\(command.name): \(error)")
        }
    }

    private func identify(_ command: IdentifyPhotoCommand, deadline: ContinuousClock.Instant, delivery: String)
        async throws -> Reply
    {
        let started = ContinuousClock.now
        let photo: [UInt8]
        do {
            // Gone (expired or flushed) is not "nothing found": the client retries with its photo, and the gateway
            // counts no quota for a 503.
            guard let loaded = try await photos.load(command.photoKey) else {
                return .error(503, "photo expired, retry")
            }
            photo = loaded
        } catch {
            return .error(.photoStoreUnavailable)
        }
        // Leave room to produce the reply before the gateway gives up.
        let outcome = await identifier.identify(command, photo: photo, deadline: deadline - .milliseconds(500))
        let response = outcome.response
        let computed = IdentifyEffectsPlan.compute(
            command, response: response, path: outcome.path,
            latencyMs: Int((ContinuousClock.now - started).inMilliseconds), awardKey: delivery)
        let (photos, effects) = (self.photos, self.effects)
        // After the reply is out and before the offset is committed; the photo goes last, so a redelivery before
        // the effects are safe still finds it.
        return Reply.json(200, response).then {
            try await effects.applyOrHandOff(computed, key: command.userId ?? command.deviceId ?? command.photoKey)
            await photos.delete(command.photoKey)
        }
    }
}
