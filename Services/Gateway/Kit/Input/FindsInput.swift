import Contracts
import HTTPServer
import Runtime

/// `GET /v1/finds` and `POST /v1/finds` input (docs/COMPATIBILITY.md#finds).
enum FindsInput {
    /// `limit`: default 100, integer-truncated; outside 1…200 or not a number → 400 naming it.
    static func limit(_ query: [String: String]) throws(HTTPResponse) -> Int {
        try QueryNumbers(query).integer("limit", default: 100, range: 1...200)
    }

    /// 1…50 valid items; anything else is a 400 naming the first problem.
    static func validate(_ request: HTTPRequest) -> Result<RecordFindsRequest, HTTPResponse> {
        guard case .success(let body) = JSONBody.decode(RecordFindsRequest.self, from: request, error: "") else {
            return .failure(.error(400, "invalid finds body"))
        }
        guard (1...50).contains(body.finds.count) else { return .failure(.error(400, "finds must hold 1-50 items")) }
        for (index, find) in body.finds.enumerated() {
            if let problem = find.validationError { return .failure(.error(400, "finds[\(index)]: \(problem)")) }
            if let createdAt = find.createdAt, RFC3339.parse(createdAt) == nil {
                return .failure(.error(400, "finds[\(index)]: createdAt must be an ISO-8601 time"))
            }
        }
        return .success(body)
    }
}
