import Contracts
import HTTPServer

extension HTTPResponse {
    /// A failure from the shared vocabulary, as the flat `{"error": "…"}` body.
    static func error(_ failure: APIError, headers: [(String, String)] = []) -> HTTPResponse {
        .error(failure.status, failure.message, headers: headers)
    }
}
