import Contracts
import Foundation
import HTTPServer

/// `/v1/push/*` (docs/COMPATIBILITY.md#push-routes): validated here with the exact 400/401 bodies, answered by the
/// PushDispatcher, which owns the push tables. Auth is per route: `revoke-device` is public and
/// `revoke-expired-session-device` checks its expired bearer itself; the others require a valid session. Logs and
/// metrics carry the route template only, so token ids in paths and queries never reach them.
struct PushRoutes: Sendable {
    let caller: ServiceCaller
    let tokens: SessionTokens
    let budget: Duration

    /// Expo-token-only recovery with an expired session is limited to 90 days after expiry.
    static let expiredRecoveryWindow: TimeInterval = 90 * 24 * 3600

    var routes: [Route] {
        [
            Route("POST", "/v1/push/revoke-device") { context in
                let body = PushInput.object(context.request)
                guard let token = PushWire.expoToken(body["token"]), let tokenId = PushWire.tokenId(body["tokenId"]),
                    case .success(let deviceId) = PushWire.deviceId(body["deviceId"])
                else { return .error(.validTokenIdAndExpoTokenRequired) }
                return await call(
                    PushRevokeDeviceCommand.name, key: nil,
                    PushRevokeDeviceCommand(token: token, tokenId: tokenId, deviceId: deviceId), context)
            },
            Route("POST", "/v1/push/revoke-expired-session-device") { context in
                let body = PushInput.object(context.request)
                let token = PushWire.expoToken(body["token"])
                let tokenId = PushWire.tokenId(body["tokenId"])
                guard token != nil || tokenId != nil, body["token"] == nil || token != nil,
                    body["tokenId"] == nil || tokenId != nil,
                    case .success(let deviceId) = PushWire.deviceId(body["deviceId"])
                else { return .error(.validExpoTokenOrTokenIdRequired) }
                let rejected = HTTPResponse.error(401, "expired session recovery token required")
                guard let bearer = SessionTokens.bearer(context.request.head.headers["Authorization"]),
                    let session = try? tokens.verifyExpiredSession(bearer)
                else { return rejected }
                if tokenId == nil && Date().timeIntervalSince(session.expiredAt) > Self.expiredRecoveryWindow {
                    return rejected
                }
                return await call(
                    PushRevokeExpiredSessionDeviceCommand.name, key: session.userId,
                    PushRevokeExpiredSessionDeviceCommand(
                        subject: session.userId, token: token, tokenId: tokenId, deviceId: deviceId), context)
            },
            Route("POST", "/v1/push/revoke-current-device", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let body = PushInput.object(context.request)
                guard let token = PushWire.expoToken(body["token"]),
                    case .success(let deviceId) = PushWire.deviceId(body["deviceId"])
                else { return .error(.validExpoTokenRequired) }
                return await call(
                    PushRevokeCurrentDeviceCommand.name, key: userId,
                    PushRevokeCurrentDeviceCommand(userId: userId, token: token, deviceId: deviceId), context)
            },
            Route("POST", "/v1/push/register", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let body = PushInput.object(context.request)
                guard let token = PushWire.expoToken(body["token"]),
                    case .success(let platform) = PushWire.platform(body["platform"]),
                    case .success(let deviceId) = PushWire.deviceId(body["deviceId"])
                else { return .error(.validExpoTokenRequired) }
                return await call(
                    PushRegisterCommand.name, key: userId,
                    PushRegisterCommand(
                        userId: userId, token: token, platform: platform, deviceId: deviceId ?? context.caller.deviceId),
                    context)
            },
            Route("POST", "/v1/push/prefs", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let body = PushInput.object(context.request)
                guard let tokenId = PushWire.tokenId(body["tokenId"]), case .object(let prefs)? = body["prefs"],
                    let patch = PushWire.preferencePatch(prefs)
                else { return .error(.tokenIdAndPrefsRequired) }
                return await call(
                    PushPrefsWriteCommand.name, key: userId,
                    PushPrefsWriteCommand(userId: userId, tokenId: tokenId, patch: patch), context)
            },
            Route("GET", "/v1/push/prefs", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                // Omitted → the explicit empty result; never another installation of the account.
                guard let raw = context.request.head.query["tokenId"] else {
                    return .json(200, PushPrefsReadResponse.empty)
                }
                guard let tokenId = PushWire.tokenId(raw) else { return .error(.validTokenIdRequired) }
                return await call(
                    PushPrefsReadCommand.name, key: userId, PushPrefsReadCommand(userId: userId, tokenId: tokenId),
                    context)
            },
            Route("DELETE", "/v1/push/token/:id", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                guard let tokenId = context.parameters["id"].flatMap({ PushWire.tokenId($0) }) else {
                    return .error(.validTokenIdRequired)
                }
                return await call(
                    PushDeleteTokenCommand.name, key: userId, PushDeleteTokenCommand(userId: userId, tokenId: tokenId),
                    context)
            },
        ]
    }

    private func call<Command: Encodable>(
        _ name: String, key: String?, _ command: Command, _ context: RouteContext
    ) async -> HTTPResponse {
        let response = await caller.call(
            .push, name, key: key, command: command, budget: budget, requestId: context.requestId)
        return response.status == 204 ? .empty(204) : response
    }
}
