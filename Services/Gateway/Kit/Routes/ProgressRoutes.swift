import Contracts
import HTTPServer

/// `GET /v1/progress` and `GET /v1/universe/summary` (bearer): answered by Identify, which owns finds and progress.
struct ProgressRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var routes: [Route] {
        [
            Route("GET", "/v1/progress", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                return await caller.call(
                    .identify, ProgressCommand.name, key: userId, command: ProgressCommand(userId: userId),
                    budget: budget, requestId: context.requestId)
            },
            Route("GET", "/v1/universe/summary", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                return await caller.call(
                    .identify, UniverseSummaryCommand.name, key: userId,
                    command: UniverseSummaryCommand(userId: userId),
                    budget: budget, requestId: context.requestId)
            },
        ]
    }
}
