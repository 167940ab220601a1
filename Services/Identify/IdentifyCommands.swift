import Contracts
import FoundationEssentials
import Messaging
import Runtime
import ServiceKit

/// Routes Identify's commands to their handlers and publishes their events.
struct IdentifyCommands: Sendable {
    let identifier: PhotoIdentifier
    let finds: FindsCommands
    let effects: SignedInEffects
    let photos: PhotoClaims
    let context: ServiceContext

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case IdentifyPhotoCommand.name: try await identify(decode(command), deadline: command.deadline)
        case ResolveComparableCommand.name: await identifier.resolveComparable(try decode(command))
        case ListFindsCommand.name: try await finds.list(decode(command))
        case ReplayFindsCommand.name: try await finds.replay(decode(command))
        case DexCommand.name: try await finds.dex(decode(command))
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

    private func identify(_ command: IdentifyPhotoCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        let started = ContinuousClock.now
        // Leave room to produce the reply before the gateway gives up.
        let outcome = await identifier.identify(command, deadline: deadline - .milliseconds(500))
        let response = outcome.response
        let latencyMs = Int((ContinuousClock.now - started).inMilliseconds)
        let (photos, effects, context) = (self.photos, self.effects, self.context)
        // Everything else happens after the reply is out, and before the offset is committed (at-least-once).
        return Reply.json(200, response).then {
            await photos.delete(command.photoKey)
            if let userId = command.userId, !response.investables.isEmpty {
                await effects.run(userId: userId, response: response)
            }
            await context.emit(
                type: IdentifyCompletedEvent.type, schemaVersion: IdentifyCompletedEvent.schemaVersion,
                key: command.userId ?? command.deviceId ?? "anonymous",
                data: IdentifyCompletedEvent(
                    path: outcome.path.rawValue, modelUsed: response.identification.modelUsed, latencyMs: latencyMs,
                    detections: response.identification.detected.count, investables: response.investables.count,
                    publicInvestables: response.investables.filter(\.brand.isPublic).count,
                    signedIn: command.userId != nil))
        }
    }

}
