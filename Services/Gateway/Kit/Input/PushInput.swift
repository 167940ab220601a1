import Contracts
import HTTPServer

/// `/v1/push/*` input (docs/COMPATIBILITY.md#push-routes); the field rules are `PushWire`'s, in Contracts.
enum PushInput {
    /// The JSON body as an object; anything else (empty, unparseable, not an object) reads as `{}`, which then fails
    /// the route's validation with its 400 message, as in the original.
    static func object(_ request: HTTPRequest) -> [String: JSONValue] {
        guard let value = JSONBody.strict(JSONValue.self, from: request.body), case .object(let object) = value
        else { return [:] }
        return object
    }
}
