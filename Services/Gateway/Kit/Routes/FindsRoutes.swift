import Contracts
import Crypto
import Foundation
import HTTPServer
import Runtime

/// `GET /v1/finds`, `POST /v1/finds` (guest replay) and `GET /v1/dex` (docs/COMPATIBILITY.md#finds): validated here,
/// answered by Identify, which owns the journal.
struct FindsRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var routes: [Route] {
        [
            Route("GET", "/v1/finds", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let limit: Int
                do throws(HTTPResponse) {
                    limit = try FindsInput.limit(context.request.head.query)
                } catch {
                    return error
                }
                return await caller.call(
                    .identify, ListFindsCommand.name, key: userId,
                    command: ListFindsCommand(userId: userId, limit: limit),
                    budget: budget, requestId: context.requestId)
            },
            Route("POST", "/v1/finds", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                let request: RecordFindsRequest
                switch FindsInput.validate(context.request) {
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
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                return await caller.call(
                    .identify, DexCommand.name, key: userId, command: DexCommand(userId: userId), budget: budget,
                    requestId: context.requestId)
            },
        ]
    }
}
