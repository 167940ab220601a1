import Contracts
import HTTPServer
import ResearchCore

/// `POST /v1/cockpit {tickers}`: Underlying's batch rank of up to 10 tickers, asked through the Research service.
/// No session and no quota, as the original; a body without one valid ticker is a 400.
struct CockpitRoute: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    var route: Route {
        Route("POST", "/v1/cockpit") { context in
            guard let tickers = CockpitRules.tickers(JSONBody.strict(JSONValue.self, from: context.request.body))
            else { return .error(400, CockpitRules.tickersRequired) }
            return await caller.call(
                .research, CockpitCommand.name, key: tickers.joined(separator: ","),
                command: CockpitCommand(tickers: tickers), budget: budget, requestId: context.requestId)
        }
    }
}
