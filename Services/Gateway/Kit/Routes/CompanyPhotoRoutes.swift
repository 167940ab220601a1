import Contracts
import Foundation
import HTTPServer
import Runtime

/// The company-photo routes (docs/COMPATIBILITY.md#company-photos), answered by Identify, which re-encodes and stores
/// the photos: upload (bearer, the identify quota; the bytes travel by claim check, never on Kafka), the public
/// gallery and image, a vote per user and photo, the owner's delete.
struct CompanyPhotoRoutes: Sendable {
    static let companyIdRequired = APIError(400, "company id required")
    static let idempotencyKeyRequired = APIError(400, "Idempotency-Key header required")
    static let badDirection = APIError(400, #"direction must be "up" or "down""#)

    let photos: any PhotoClaims
    let caller: ServiceCaller
    let guards: any IdentifyGate
    /// The gateway's public origin, for each photo's `photoUrl`.
    let publicURL: String
    /// The upload waits for the decode and re-encode.
    let uploadBudget: Duration
    let budget: Duration
    let logger: Logger

    var routes: [Route] {
        [
            Route(
                "POST", "/v1/companies/:id/photos", auth: .required, bodyLimit: IdentifyForm.maxImageBytes,
                tooLarge: IdentifyForm.tooLarge
            ) { context in await upload(context) },
            Route("GET", "/v1/companies/:id/photos") { context in
                guard let companyId = CompanyPhotoForm.companyId(context.parameters["id"]) else {
                    return .error(Self.companyIdRequired)
                }
                return await caller.call(
                    .identify, PhotoCommandName.gallery, key: companyId,
                    command: PhotoGalleryCommand(companyId: companyId, imageBase: publicURL), budget: budget,
                    requestId: context.requestId)
            },
            Route("GET", "/v1/photos/:id/image") { context in
                let id = context.parameters["id"] ?? ""
                return await caller.call(
                    .identify, PhotoCommandName.image, key: id, command: PhotoCommand(photoId: id), budget: budget,
                    requestId: context.requestId)
            },
            Route("POST", "/v1/photos/:id/vote", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                guard let object = JSONBody.strict([String: JSONValue].self, from: context.request.body),
                    case .string(let raw) = object["direction"], let direction = PhotoVoteDirection(rawValue: raw)
                else { return .error(Self.badDirection) }
                let id = context.parameters["id"] ?? ""
                return await caller.call(
                    .identify, PhotoCommandName.vote, key: id,
                    command: PhotoCommand(photoId: id, userId: userId, direction: direction, imageBase: publicURL),
                    budget: budget, requestId: context.requestId)
            },
            Route("DELETE", "/v1/photos/:id", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let id = context.parameters["id"] ?? ""
                return await caller.call(
                    .identify, PhotoCommandName.delete, key: id, command: PhotoCommand(photoId: id, userId: userId),
                    budget: budget, requestId: context.requestId)
            },
        ]
    }

    /// The original's checks in order, then the claim check, the quota hold (given back when the upload is refused
    /// or was a replay of the same `Idempotency-Key`), and Identify's answer.
    func upload(_ context: RouteContext) async -> HTTPResponse {
        guard let user = context.caller.user else { return .error(.unknownUser) }
        guard let companyId = CompanyPhotoForm.companyId(context.parameters["id"]) else {
            return .error(Self.companyIdRequired)
        }
        guard
            let key = context.request.head.headers["Idempotency-Key"]?.trimmingCharacters(in: .whitespaces),
            !key.isEmpty, key.count <= 200
        else { return .error(Self.idempotencyKeyRequired) }
        let form: CompanyPhotoForm
        switch CompanyPhotoForm.parse(context.request) {
        case .success(let parsed): form = parsed
        case .failure(let rejection): return rejection.response
        }
        let photoKey: String
        switch await photos.claim(form.image, requestId: context.requestId, logger: logger) {
        case .success(let key): photoKey = key
        case .failure(let unavailable): return unavailable
        }
        let hold = await guards.hold(userId: user.id, deviceId: context.caller.deviceId)
        if let spent = hold.reject { return spent }
        let command = SubmitPhotoCommand(
            userId: user.id, handle: user.handle, companyId: companyId, idempotencyKey: key, photoKey: photoKey,
            lat: form.location.lat, lng: form.location.lng, exifTimestamp: form.exifTimestamp, imageBase: publicURL)
        let response = await caller.call(
            .identify, PhotoCommandName.submit, key: user.id, command: command, budget: uploadBudget,
            requestId: context.requestId)
        let replayed = response.headers.contains { $0.0.lowercased() == "idempotent-replayed" }
        if response.status >= 400 || replayed, let usage = hold.usage {
            await guards.release(usage)
        }
        return response
    }
}
