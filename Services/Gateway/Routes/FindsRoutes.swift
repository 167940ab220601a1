import Contracts
import Crypto
import Foundation
import HTTPServer
import Runtime

/// `GET /v1/finds`, `POST /v1/finds` (guest replay) and `GET /v1/dex` (CONTRACT.md §f): validated here, answered by
/// Identify, which owns the journal.
struct FindsRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var routes: [Route] {
        [
            Route("GET", "/v1/finds", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(401, "unknown user") }
                let limit: Int
                do throws(HTTPResponse) { limit = try Self.limit(context.request.head.query) } catch { return error }
                return await caller.call(
                    .identify, ListFindsCommand.name, key: userId, command: ListFindsCommand(userId: userId, limit: limit),
                    budget: budget, requestId: context.requestId)
            },
            Route("POST", "/v1/finds", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(401, "unknown user") }
                let request: RecordFindsRequest
                switch Self.validate(context.request) {
                case .success(let valid): request = valid
                case .failure(let response): return response
                }
                let key = context.request.head.headers["Idempotency-Key"]?.trimmingCharacters(in: .whitespaces)
                if let key, key.isEmpty || key.count > 255 { return .error(400, "invalid Idempotency-Key") }
                return await caller.call(
                    .identify, ReplayFindsCommand.name, key: userId,
                    command: ReplayFindsCommand(userId: userId, finds: request.finds, idempotencyKey: key),
                    budget: budget, requestId: context.requestId)
            },
            Route("GET", "/v1/dex", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(401, "unknown user") }
                return await caller.call(
                    .identify, DexCommand.name, key: userId, command: DexCommand(userId: userId), budget: budget,
                    requestId: context.requestId)
            },
        ]
    }

    /// `limit`: default 100, integer-truncated, clamped 1…200; non-numeric → 100; not finite → 400.
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
            if let createdAt = find.createdAt, Timestamp.parse(createdAt) == nil {
                return .failure(.error(400, "finds[\(index)]: createdAt must be an ISO-8601 time"))
            }
        }
        return .success(body)
    }
}
