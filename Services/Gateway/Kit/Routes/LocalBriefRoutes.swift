import Contracts
import Foundation
import HTTPServer

/// The Local Economy Brief routes (docs/COMPATIBILITY.md#local-brief), bearer-only, validated here and answered by
/// Briefs; commands are keyed by the user id.
struct LocalBriefRoutes: Sendable {
    let caller: ServiceCaller
    let budget: Duration
    let briefBudget: Duration

    private typealias Name = LocalBriefCommandName

    var routes: [Route] {
        [
            user("POST", "/v1/local-brief", budget: briefBudget) { userId, context in
                (Name.brief, Self.brief(userId: userId, context))
            },
            user("POST", "/v1/local-brief/save") { userId, context in
                (Name.save, Self.save(userId: userId, context))
            },
            user("GET", "/v1/local-brief/saved") { userId, _ in
                (Name.saved, .success(SavedLocalBriefCommand(userId: userId)))
            },
            user("DELETE", "/v1/local-brief/saved/:id") { userId, context in
                (Name.delete, Self.savedId(userId: userId, context))
            },
        ]
    }

    /// Briefs' bearer-only route shape, shared with the watchlist routes.
    private func user<Command: Encodable & Sendable>(
        _ method: String, _ template: String, budget: Duration? = nil,
        _ build: @escaping @Sendable (String, RouteContext) -> (String, Result<Command, HTTPResponse>)
    ) -> Route {
        WatchlistRoutes(caller: caller, budget: self.budget, briefBudget: briefBudget, addBudget: self.budget)
            .user(method, template, budget: budget) { userId, context in
                let (name, built) = build(userId, context)
                return (name, built.mapError { WatchlistRoutes.Rejection(response: $0) })
            }
    }

    /// A saved-brief id as issued (`lb_…`, the list-id alphabet); anything else is no one's.
    static func savedId(userId: String, _ context: RouteContext) -> Result<SavedLocalBriefCommand, HTTPResponse> {
        guard let id = context.parameters["id"], WatchlistRoutes.isListId(id) else {
            return .failure(.error(.savedBriefNotFound))
        }
        return .success(SavedLocalBriefCommand(userId: userId, id: id))
    }

    private struct PlaceBody: Decodable {
        let neighborhood: String?
        let city: String?
        let state: String?
        let zip: String?
    }

    private struct BriefBody: Decodable {
        let lat: Double?
        let lng: Double?
        let neighborhood: String?
        let city: String?
        let state: String?
        let zip: String?
    }

    /// Latitude in [-90, 90] and longitude in [-180, 180], both finite.
    static func coordinates(_ lat: Double?, _ lng: Double?) -> (Double, Double)? {
        guard let lat, let lng, lat.isFinite, lng.isFinite, abs(lat) <= 90, abs(lng) <= 180 else { return nil }
        return (lat, lng)
    }

    /// Place fields: trimmed, empty → absent, at most 120 characters; NUL refused.
    static func place(neighborhood: String?, city: String?, state: String?, zip: String?) -> LocalBriefPlace? {
        let fields = [neighborhood, city, state, zip]
        guard fields.allSatisfy({ !($0?.contains("\0") ?? false) }) else { return nil }
        let clean = fields.map { WatchlistRoutes.text($0, max: 120) }
        return LocalBriefPlace(neighborhood: clean[0], city: clean[1], state: clean[2], zip: clean[3])
    }

    static func brief(userId: String, _ context: RouteContext) -> Result<LocalBriefCommand, HTTPResponse> {
        let required = HTTPResponse.error(.latLngRequired)
        guard case .success(let body) = JSONBody.decode(BriefBody.self, from: context.request, error: ""),
            let (lat, lng) = coordinates(body.lat, body.lng)
        else { return .failure(required) }
        guard let place = place(neighborhood: body.neighborhood, city: body.city, state: body.state, zip: body.zip)
        else {
            return .failure(.error(400, "place fields must not contain NUL"))
        }
        return .success(LocalBriefCommand(userId: userId, lat: lat, lng: lng, place: place))
    }

    private struct SaveBody: Decodable {
        let label: String?
        let lat: Double?
        let lng: Double?
        let brief: String?
        let place: PlaceBody?
    }

    /// The checks of docs/COMPATIBILITY.md#local-brief, in order: label, brief text (≥ 20 characters), coordinates.
    static func save(userId: String, _ context: RouteContext) -> Result<SaveLocalBriefCommand, HTTPResponse> {
        guard case .success(let body) = JSONBody.decode(SaveBody.self, from: context.request, error: ""),
            let label = WatchlistRoutes.text(body.label, max: .max)
        else { return .failure(.error(400, "label required")) }
        guard label.count <= 120 else { return .failure(.error(400, "label must be at most 120 characters")) }
        guard let brief = body.brief?.trimmingCharacters(in: .whitespacesAndNewlines), brief.count >= 20 else {
            return .failure(.error(400, "brief text required (min 20 chars)"))
        }
        guard brief.utf8.count <= 20_000 else { return .failure(.error(400, "brief text too long (max 20000 bytes)")) }
        guard let (lat, lng) = coordinates(body.lat, body.lng) else { return .failure(.error(.latLngRequired)) }
        let given = body.place
        guard !label.contains("\0"), !brief.contains("\0"),
            let place = place(
                neighborhood: given?.neighborhood, city: given?.city, state: given?.state, zip: given?.zip)
        else { return .failure(.error(400, "fields must not contain NUL")) }
        return .success(
            SaveLocalBriefCommand(userId: userId, label: label, lat: lat, lng: lng, brief: brief, place: place))
    }
}
