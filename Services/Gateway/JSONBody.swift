import FoundationEssentials
import HTTPServer

/// Decodes a route's JSON body; anything unparseable or of the wrong shape is a 400 with the route's message
/// (the original answered 500 to unparseable JSON; we answer 400).
enum JSONBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest, error message: String) -> Result<T, HTTPResponse> {
        guard !request.body.isEmpty, let value = try? JSONDecoder().decode(T.self, from: Data(request.body)) else {
            return .failure(.error(400, message))
        }
        return .success(value)
    }
}
