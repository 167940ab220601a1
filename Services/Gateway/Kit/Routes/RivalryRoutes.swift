import Contracts
import HTTPServer

/// The rivalries routes (docs/COMPATIBILITY.md#rivalries): bearer-only, bodies read here, answered by Identify (which
/// owns the rivalries and the XP ledger their picks pay into). Commands are keyed by the user id.
struct RivalryRoutes: Sendable {
    static let badPick = APIError(400, #"pick must be "ticker", "rival", or null"#)

    let caller: ServiceCaller
    let budget: Duration
    /// Creating may wait for the comparables pipeline (up to 12 s) when no rival is sent.
    let createBudget: Duration

    var routes: [Route] {
        [
            user("GET", "/v1/rivalries", RivalryCommandName.list, budget) { userId, _ in
                .success(RivalryUserCommand(userId: userId))
            },
            user("POST", "/v1/rivalries", RivalryCommandName.create, createBudget) { userId, context in
                Self.create(userId: userId, body: context.request.body)
            },
            user("POST", "/v1/rivalries/:id/pick", RivalryCommandName.pick, budget) { userId, context in
                Self.pick(userId: userId, id: context.parameters["id"] ?? "", body: context.request.body)
            },
            user("DELETE", "/v1/rivalries/:id", RivalryCommandName.delete, budget) { userId, context in
                .success(RivalryUserCommand(userId: userId, rivalryId: context.parameters["id"] ?? ""))
            },
        ]
    }

    private func user<Command: Encodable & Sendable>(
        _ method: String, _ template: String, _ name: String, _ budget: Duration,
        _ build: @escaping @Sendable (String, RouteContext) -> Result<Command, HTTPResponse>
    ) -> Route {
        let caller = self.caller
        return Route(method, template, auth: .required) { context in
            guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
            switch build(userId, context) {
            case .failure(let response): return response
            case .success(let command):
                return await caller.call(
                    .identify, name, key: userId, command: command, budget: budget, requestId: context.requestId)
            }
        }
    }

    /// `{ticker, rivalTicker?}`, both strings; anything else (no JSON object, a missing or non-string ticker, a
    /// non-string rival) is `ticker required`. Identify checks the symbols themselves.
    static func create(userId: String, body: [UInt8]) -> Result<CreateRivalryCommand, HTTPResponse> {
        guard let object = JSONBody.strict([String: JSONValue].self, from: body),
            case .string(let ticker) = object["ticker"]
        else { return .failure(.error(.tickerRequired)) }
        switch object["rivalTicker"] {
        case nil: return .success(CreateRivalryCommand(userId: userId, ticker: ticker, rivalTicker: nil))
        case .string(let rival):
            return .success(CreateRivalryCommand(userId: userId, ticker: ticker, rivalTicker: rival))
        default: return .failure(.error(.tickerRequired))
        }
    }

    /// `{pick: "ticker" | "rival" | null}`; null clears. A missing or other value never clears a pick: it is a 400.
    static func pick(userId: String, id: String, body: [UInt8]) -> Result<RivalryPickCommand, HTTPResponse> {
        let object = JSONBody.strict([String: JSONValue].self, from: body) ?? [:]
        switch object["pick"] {
        case .null: return .success(RivalryPickCommand(userId: userId, rivalryId: id, pick: nil))
        case .string(let side):
            guard let pick = RivalryPick(rawValue: side) else { return .failure(.error(badPick)) }
            return .success(RivalryPickCommand(userId: userId, rivalryId: id, pick: pick))
        default: return .failure(.error(badPick))
        }
    }
}
