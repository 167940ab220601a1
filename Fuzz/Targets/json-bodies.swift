import Contracts
import HTTPServer

@testable import GatewayKit

/// Fuzz target `json-bodies`: one JSON body through every route's body validation (finds replay, search intent,
/// resolve-comparable shape, push fields, sign-in email) and the edge's body text check.
func fuzzJSONBodies(_ body: [UInt8]) {
    let request = HTTPRequest(
        head: HTTPRequestHead(method: "POST", path: "/", headers: ["Content-Type": "application/json"]), body: body)
    _ = JSONBody.textProblem(request)
    _ = FindsInput.validate(request)
    _ = try? ResearchInput.intent(request)
    let object = PushInput.object(request)
    _ = PushWire.expoToken(object["token"])
    _ = PushWire.tokenId(object["tokenId"])
    _ = PushWire.deviceId(object["deviceId"])
    _ = PushWire.platform(object["platform"])
    if case .object(let prefs)? = object["prefs"] { _ = PushWire.preferencePatch(prefs) }
    if case .string(let email)? = object["email"] { _ = AuthInput.normalizedEmail(email) }
    _ = AuthInput.normalizedEmail(String(decoding: body, as: UTF8.self))
}
