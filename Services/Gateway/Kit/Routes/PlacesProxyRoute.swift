import Contracts
import Foundation
import HTTPServer

/// `GET /v1/proxy/places?location=lat,lng&radius=&keyword=&type=` (docs/COMPATIBILITY.md#places-proxy, #maps-token):
/// the map's places lookup for a maps-token bearer, answered by Nearby from the same tile cache and cascade as
/// `/v1/nearby`, so the client never holds the Google key.
struct PlacesProxyRoute: Sendable {
    let caller: ServiceCaller
    let tokens: SessionTokens
    let budget: Duration

    var route: Route {
        Route("GET", "/v1/proxy/places") { context in
            if let rejection = authorize(context.request.headers["Authorization"]) { return rejection }
            let command: PlacesProxyCommand
            switch Self.command(context.request.head.query) {
            case .success(let valid): command = valid
            case .failure(let response): return response
            }
            return await caller.call(
                .nearby, PlacesProxyCommand.name, key: NearbyRoute.partitionKey(lat: command.lat, lng: command.lng),
                command: command, budget: budget, requestId: context.requestId)
        }
    }

    /// A 401 unless the bearer is a valid maps token (a session token is refused: wrong purpose or wrong key).
    func authorize(_ header: String?) -> HTTPResponse? {
        guard let token = SessionTokens.bearer(header) else { return .error(401, "missing maps token") }
        do {
            _ = try tokens.verifyMaps(token)
            return nil
        } catch .wrongPurpose {
            return .error(.wrongTokenPurpose)
        } catch {
            return .error(401, "invalid maps token")
        }
    }

    static let maximumKeywordLength = 100

    /// `location` is `lat,lng` in decimal degrees (in range); `radius` metres, default 500, a number in (0, 50 000];
    /// `keyword` at most 100 characters; `type` a Google place type (lower-case letters and `_`, ≤ 40).
    static func command(_ query: [String: String]) -> Result<PlacesProxyCommand, HTTPResponse> {
        guard let location = query["location"].flatMap(Self.location) else {
            return .failure(.error(400, "location=lat,lng required"))
        }
        let radiusText = (query["radius"] ?? "500").trimmingCharacters(in: .whitespaces)
        guard let radius = Double(radiusText), radius.isFinite, radius > 0, radius <= 50_000 else {
            return .failure(.error(400, "radius must be a positive number <= 50000"))
        }
        let keyword = query["keyword"].flatMap { $0.isEmpty ? nil : $0 }
        if let keyword, keyword.count > maximumKeywordLength {
            return .failure(.error(400, "keyword must be at most \(maximumKeywordLength) characters"))
        }
        let type = query["type"].flatMap { $0.isEmpty ? nil : $0 }
        if let type, !(1...40).contains(type.count) || !type.allSatisfy({ ("a"..."z").contains($0) || $0 == "_" }) {
            return .failure(.error(400, "type must be a place type such as cafe"))
        }
        return .success(
            PlacesProxyCommand(lat: location.lat, lng: location.lng, radius: radius, keyword: keyword, type: type))
    }

    /// `-?digits(.digits)?,-?digits(.digits)?`, both in range.
    static func location(_ text: String) -> LatLng? {
        guard text.count <= 64 else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy(isDecimal) else { return nil }
        return LatLng.validated(lat: Double(parts[0]), lng: Double(parts[1]))
    }

    private static func isDecimal(_ s: Substring) -> Bool {
        let body = s.first == "-" ? s.dropFirst() : s
        let pieces = body.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(pieces.count)
            && pieces.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
    }
}
