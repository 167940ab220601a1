import Contracts
import Foundation
import HTTPServer
import Runtime

/// The price-alert routes (docs/COMPATIBILITY.md#alerts): bearer-only, validated here as the original did, answered by
/// Briefs, which owns the alerts. Commands are keyed by the user id.
struct AlertRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration

    private typealias Name = PriceAlertCommandName

    var routes: [Route] {
        [
            user("POST", "/v1/alerts") { userId, context in (Name.create, Self.create(userId: userId, context)) },
            user("GET", "/v1/alerts") { userId, _ in (Name.list, .success(PriceAlertUserCommand(userId: userId))) },
            user("GET", "/v1/alerts/check") { userId, _ in (Name.check, .success(PriceAlertUserCommand(userId: userId)))
            },
            user("DELETE", "/v1/alerts/:id") { userId, context in (Name.delete, Self.delete(userId: userId, context)) },
        ]
    }

    private func user<Command: Encodable & Sendable>(
        _ method: String, _ template: String,
        _ build: @escaping @Sendable (String, RouteContext) -> (String, Result<Command, HTTPResponse>)
    ) -> Route {
        let (caller, budget) = (self.caller, self.budget)
        return Route(method, template, auth: .required) { context in
            guard let userId = context.caller.user?.id else { return .error(.unknownUser) }
            let (name, built) = build(userId, context)
            switch built {
            case .failure(let response): return response
            case .success(let command):
                return await caller.call(
                    .briefs, name, key: userId, command: command, budget: budget, requestId: context.requestId)
            }
        }
    }

    /// An id as issued (`alt_<uuid>`): the same alphabet and length as list ids; anything else is no one's alert.
    static func isAlertId(_ id: String) -> Bool { WatchlistRoutes.isListId(id) }

    static func delete(userId: String, _ context: RouteContext) -> Result<PriceAlertUserCommand, HTTPResponse> {
        guard let id = context.parameters["id"], isAlertId(id) else { return .failure(.error(.notFound)) }
        return .success(PriceAlertUserCommand(userId: userId, alertId: id))
    }

    /// `{ticker, kind, threshold, note?}`: ticker trimmed and upper-cased, `^[A-Z][A-Z0-9.-]{0,9}$`; kind one of
    /// the three; threshold a finite number (or a numeric string, as the original took); note trimmed, at most 240
    /// characters. An unparseable body is an empty one (`ticker required`).
    static func create(userId: String, _ context: RouteContext) -> Result<CreatePriceAlertCommand, HTTPResponse> {
        let body: [String: JSONValue]
        if case .success(let object) = JSONBody.decode([String: JSONValue].self, from: context.request, error: "") {
            body = object
        } else {
            body = [:]
        }
        guard case .string(let rawTicker) = body["ticker"], let ticker = normalizedTicker(rawTicker) else {
            return .failure(.error(.tickerRequired))
        }
        guard case .string(let rawKind) = body["kind"], let kind = PriceAlertKind(rawValue: rawKind) else {
            return .failure(.error(400, "kind must be one of price_above, price_below, pct_move"))
        }
        let threshold: Double?
        switch body["threshold"] {
        case .number(let value): threshold = value
        case .string(let text): threshold = decimal(text.trimmingCharacters(in: .whitespaces))
        default: threshold = nil
        }
        guard let threshold, threshold.isFinite else {
            return .failure(.error(400, "threshold must be a finite number"))
        }
        var note: String?
        switch body["note"] {
        case nil, .null?: break
        case .string(let raw)?:
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            note = trimmed.isEmpty ? nil : String(trimmed.prefix(240))
        default: return .failure(.error(400, "note must be a string"))
        }
        return .success(
            CreatePriceAlertCommand(userId: userId, ticker: ticker, kind: kind, threshold: threshold, note: note))
    }

    /// A numeric string as a JSON number is written (`"12.5"`, `"-1e3"`); Swift's own parser also reads hex
    /// (`"0x10"`), `inf` and `nan`, which the document does not allow.
    static func decimal(_ text: String) -> Double? {
        guard StrictJSON.isValid(Array(text.utf8)) else { return nil }
        return Double(text)
    }

    static func normalizedTicker(_ raw: String) -> String? {
        let ticker = raw.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        let bytes = Array(ticker.utf8)
        guard let first = bytes.first, (65...90).contains(first), bytes.count <= 10 else { return nil }
        return bytes.dropFirst().allSatisfy { (65...90).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 45 }
            ? ticker : nil
    }
}
