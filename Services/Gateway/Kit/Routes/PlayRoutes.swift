import Contracts
import HTTPServer

/// Play, answered by Identify beside the XP ledger: `GET /v1/quests` and `GET /v1/quests/weekly` (bearer; decided
/// from the finds journal), `GET /v1/events/current` (public; the XP event open now).
struct PlayRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var routes: [Route] {
        [
            Route("GET", "/v1/quests", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                return await caller.call(
                    .identify, QuestsCommand.name, key: userId, command: QuestsCommand(userId: userId),
                    budget: budget, requestId: context.requestId)
            },
            Route("GET", "/v1/quests/weekly", auth: .required) { context in
                guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
                return await caller.call(
                    .identify, WeeklyQuestsCommand.name, key: userId, command: WeeklyQuestsCommand(userId: userId),
                    budget: budget, requestId: context.requestId)
            },
            Route("GET", "/v1/events/current") { context in
                await caller.call(
                    .identify, CurrentEventCommand.name, key: "events", command: CurrentEventCommand(),
                    budget: budget, requestId: context.requestId)
            },
        ]
    }
}
