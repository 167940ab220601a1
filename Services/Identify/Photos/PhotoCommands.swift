import Contracts
import Foundation
import IdentifyCore
import Messaging
import OCR

/// The company-photo commands: submit (the claim-checked upload re-encoded from its pixels, then stored), the
/// gallery, one vote per user and photo, the owner's delete, and the stored JPEG with its cache headers.
struct PhotoCommands: Sendable {
    let store: CompanyPhotoStore
    let claims: PhotoClaims
    let encoder: ImageReencoder
    let clock: @Sendable () -> Date

    /// 201 when this submission became the company's first capture, else 200; a replayed `Idempotency-Key` answers
    /// the stored submission untouched (200, `Idempotent-Replayed: true`; the resent bytes are discarded). The claim
    /// is deleted after the reply.
    func submit(_ command: SubmitPhotoCommand) async throws -> Reply {
        let receivedAt = clock()
        let upload: [UInt8]
        do {
            guard let loaded = try await claims.load(command.photoKey) else { return .error(PhotoRules.uploadExpired) }
            upload = loaded
        } catch {
            return .error(.photoStoreUnavailable)
        }
        let photo: ReencodedPhoto
        do {
            photo = try await encoder.reencode(upload)
        } catch ReencodeError.busy {
            return .error(PhotoRules.encoderBusy)
        } catch {
            return .error(PhotoRules.undecodable).then { await claims.delete(command.photoKey) }
        }
        let stored = try await store.submit(
            CompanyPhotoStore.NewPhoto(
                command: command, jpeg: photo.jpeg, width: photo.width, height: photo.height, receivedAt: receivedAt),
            imageBase: command.imageBase)
        let response = PhotoCaptureResponse(
            photo: stored.photo, isFirstCapture: stored.photo.isFirstCapture, firstCapturedBy: stored.firstCapturedBy,
            captureCount: stored.captureCount)
        let status = stored.photo.isFirstCapture && !stored.replay ? 201 : 200
        return Reply.json(status, response, headers: stored.replay ? [PhotoRules.replayHeader] : [])
            .then { await claims.delete(command.photoKey) }
    }

    func gallery(_ command: PhotoGalleryCommand) async throws -> Reply {
        .json(200, try await store.gallery(companyId: command.companyId, imageBase: command.imageBase))
    }

    func vote(_ command: PhotoCommand) async throws -> Reply {
        guard let userId = command.userId, let direction = command.direction,
            let photo = try await store.vote(
                photoId: command.photoId, userId: userId, direction: direction, imageBase: command.imageBase ?? "")
        else { return .error(PhotoRules.notFound) }
        return .json(200, PhotoVoteResponse(photo: photo))
    }

    /// 204 with no body; another user's photo is 404, as an unknown id is.
    func delete(_ command: PhotoCommand) async throws -> Reply {
        guard let userId = command.userId, try await store.delete(photoId: command.photoId, userId: userId) else {
            return .error(PhotoRules.notFound)
        }
        return Reply(status: 204, body: [])
    }

    func image(_ command: PhotoCommand) async throws -> Reply {
        guard let jpeg = try await store.image(photoId: command.photoId) else { return .error(PhotoRules.notFound) }
        return Reply(status: 200, body: jpeg, headers: PhotoRules.imageHeaders)
    }
}
