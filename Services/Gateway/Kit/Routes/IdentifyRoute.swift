import Contracts
import FoundationEssentials
import HTTPServer
import Runtime

/// `POST /v1/identify` (docs/COMPATIBILITY.md#identify): validates the multipart form, stores the photo by claim check
/// and asks the Identify service. The declared `Content-Length` is checked before any body byte is read.
struct IdentifyRoute: Sendable {
    let photos: any PhotoClaims
    let caller: ServiceCaller
    let guards: any IdentifyGate
    let budget: Duration
    let logger: Logger

    var route: Route {
        Route(
            "POST", "/v1/identify", auth: .optional, bodyLimit: IdentifyForm.maxImageBytes,
            tooLarge: IdentifyForm.tooLarge,
            guard: { caller, head in await guards.check(caller, head) }
        ) { context in
            await handle(context)
        }
    }

    func handle(_ context: RouteContext) async -> HTTPResponse {
        let form: IdentifyForm
        switch IdentifyForm.parse(context.request) {
        case .success(let parsed): form = parsed
        case .failure(let rejection): return rejection.response
        }
        let photoKey: String
        switch await photos.claim(form.image, requestId: context.requestId, logger: logger) {
        case .success(let key): photoKey = key
        case .failure(let unavailable): return unavailable
        }
        let userId = context.caller.session?.userId
        let deviceId = context.caller.deviceId
        // The quota is taken before the service is asked (atomically across replicas) and given back on failure.
        let hold = await guards.hold(userId: userId, deviceId: deviceId)
        if let spent = hold.reject { return spent }
        let command = IdentifyPhotoCommand(
            photoKey: photoKey, photoContentType: form.contentType, photoBytes: form.image.count, hint: form.hint,
            location: form.location, roi: form.roi, userId: userId, deviceId: deviceId)
        let response = await caller.call(
            .identify, IdentifyPhotoCommand.name, key: userId ?? deviceId ?? photoKey, command: command,
            budget: budget, requestId: context.requestId)
        if response.status >= 400, let usage = hold.usage {
            // Quota counts only answered identifies.
            await guards.release(usage)
        }
        return response
    }
}

/// The identify route's checks before the body is read, and its quota count once a photo was answered:
/// `IdentifyGuards` (Redis, the user store) in the binary, a recorder in tests.
protocol IdentifyGate: Sendable {
    func check(_ caller: Caller, _ head: HTTPRequestHead) async -> (reject: HTTPResponse?, headers: [(String, String)])
    /// Counts one identify against the caller's free-tier quota before the service is asked: the usage row to
    /// give back if the identify fails (nil when the store was unavailable: fail open), or the 402 when spent.
    func hold(userId: String?, deviceId: String?) async -> (usage: Int64?, reject: HTTPResponse?)
    /// Gives back a held usage (the identify was not answered).
    func release(_ usage: Int64) async
}
