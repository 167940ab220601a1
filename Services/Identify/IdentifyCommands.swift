import Contracts
import FoundationEssentials
import Messaging
import Runtime
import ServiceKit

/// Routes Identify's commands to their handlers and publishes their events.
struct IdentifyCommands: Sendable {
    let identifier: PhotoIdentifier
    let context: ServiceContext

    @Sendable func handle(_ command: IncomingCommand) async throws -> Reply {
        switch command.name {
        case IdentifyPhotoCommand.name:
            let decoded: IdentifyPhotoCommand
            do {
                decoded = try JSONDecoder().decode(IdentifyPhotoCommand.self, from: Data(command.body))
            } catch {
                throw CommandDecodingError("identify.photo.v1: \(error)")
            }
            let started = ContinuousClock.now
            let outcome = await identifier.identify(decoded)
            let response = outcome.response
            await context.emit(
                type: IdentifyCompletedEvent.type, schemaVersion: IdentifyCompletedEvent.schemaVersion,
                key: decoded.userId ?? decoded.deviceId ?? command.correlationId ?? "anonymous",
                data: IdentifyCompletedEvent(
                    path: outcome.path.rawValue, modelUsed: response.identification.modelUsed,
                    latencyMs: Int((ContinuousClock.now - started).inMilliseconds),
                    detections: response.identification.detected.count, investables: response.investables.count,
                    publicInvestables: response.investables.filter(\.brand.isPublic).count,
                    signedIn: decoded.userId != nil))
            return .json(200, response)
        default:
            throw CommandDecodingError("unknown command \(command.name)")
        }
    }
}
