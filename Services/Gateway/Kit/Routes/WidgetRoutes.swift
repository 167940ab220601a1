import Contracts
import Foundation
import Geo
import HTTPServer

/// `GET /v1/widget/nearby` (docs/COMPATIBILITY.md#widgets), no auth: Nearby's answer for the point (its cascade,
/// tile cache and brand join, at most 12 items), ordered by distance, with quotes from Rating for the first six
/// distinct tickers — each asked for once, in parallel, failures left out. The quotes get their own short budget
/// after Nearby's, so the route's longest answer is the sum.
struct WidgetRoutes: Sendable {
    static let cacheControl = "public, max-age=120, stale-while-revalidate=300"
    static let quotedTickers = 6

    let caller: ServiceCaller
    let nearbyBudget: Duration
    let quoteBudget: Duration
    /// The gateway's public origin, for `mapSnapshotUrl`.
    let publicURL: String

    var routes: [Route] {
        [
            Route("GET", "/v1/widget/nearby") { context in
                let query: WidgetQuery
                do throws(HTTPResponse) { query = try WidgetQuery(context.request.head.query) } catch { return error }
                let nearby = await caller.call(
                    .nearby, NearbyCommand.name, key: NearbyRoute.partitionKey(lat: query.lat, lng: query.lng),
                    command: query.command, budget: nearbyBudget, requestId: context.requestId)
                guard nearby.status == 200 else { return nearby }
                guard let places = try? JSONDecoder().decode(NearbyResponse.self, from: Data(nearby.body)) else {
                    return .error(502, "nearby answer unreadable")
                }
                let items = Self.items(places, origin: query)
                let quotes = await quotes(for: Self.tickersToQuote(items), requestId: context.requestId)
                let response = WidgetNearbyResponse(
                    origin: LatLng(lat: query.lat, lng: query.lng),
                    items: items.map { item in
                        var item = item
                        if let ticker = item.ticker, let quote = quotes[ticker] {
                            item.price = quote.price
                            item.changePct = quote.changePct
                        }
                        return item
                    },
                    mapSnapshotUrl: publicURL + "/v1/widget/map-snapshot?" + query.snapshotQuery,
                    generatedAt: Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
                return .json(200, response, headers: [("Cache-Control", Self.cacheControl)])
            }
        ]
    }

    /// Nearby's items as widget rows, nearest first (`distanceM` rounded to metres; stable for equal distances).
    static func items(_ nearby: NearbyResponse, origin: WidgetQuery) -> [WidgetNearbyItem] {
        let rows = nearby.items.map { item in
            let brand = item.investable?.brand
            return WidgetNearbyItem(
                name: brand?.name ?? item.place.name, ticker: brand?.ticker?.symbol, isPublic: brand?.isPublic,
                sector: brand?.sector,
                distanceM: haversineMetres(
                    lat1: origin.lat, lng1: origin.lng, lat2: item.place.location.lat, lng2: item.place.location.lng
                ).rounded(),
                location: item.place.location)
        }
        return rows.enumerated().sorted { a, b in
            a.element.distanceM != b.element.distanceM ? a.element.distanceM < b.element.distanceM : a.offset < b.offset
        }.map(\.element)
    }

    /// The first six distinct tickers in distance order.
    static func tickersToQuote(_ items: [WidgetNearbyItem]) -> [String] {
        var seen: [String] = []
        for ticker in items.compactMap(\.ticker) where !seen.contains(ticker) && seen.count < quotedTickers {
            seen.append(ticker)
        }
        return seen
    }

    /// One quote command per ticker, all at once; a failed one is simply absent.
    private func quotes(for tickers: [String], requestId: String) async -> [String: Quote] {
        await withTaskGroup(of: (String, Quote?).self) { group in
            for ticker in tickers {
                group.addTask {
                    let reply = await caller.call(
                        .rating, QuoteCommand.name, key: ticker, command: QuoteCommand(symbol: ticker),
                        budget: quoteBudget, requestId: requestId)
                    guard reply.status == 200 else { return (ticker, nil) }
                    return (ticker, try? JSONDecoder().decode(QuoteResponse.self, from: Data(reply.body)).quote)
                }
            }
            return await group.reduce(into: [:]) { quotes, pair in quotes[pair.0] = pair.1 }
        }
    }
}

/// The widget's query (docs/openapi.yaml): `lat`/`lng` finite and in range (else 400 `lat/lng required`); `radius`
/// metres (default 1500) and `limit` (default 8, truncated) are clamped to 1…50 000 and 1…12, as the original clamps
/// them; absent or empty is the default, text that is not a finite number a 400 naming the parameter.
struct WidgetQuery: Sendable {
    let lat: Double
    let lng: Double
    let radius: Double
    let limit: Int

    init(_ query: [String: String]) throws(HTTPResponse) {
        let numbers = QueryNumbers(query)
        guard let point = LatLng.validated(lat: try? numbers.double("lat"), lng: try? numbers.double("lng")) else {
            throw .error(.latLngRequired)
        }
        lat = point.lat
        lng = point.lng
        radius = min(50_000, max(1, try numbers.double("radius") ?? 1500))
        limit = Self.clamped(try numbers.double("limit"), default: 8, to: 1...12)
    }

    /// A whole number within `range`: truncated toward zero, then clamped; `fallback` when absent.
    static func clamped(_ value: Double?, default fallback: Int, to range: ClosedRange<Int>) -> Int {
        guard let value else { return fallback }
        let bounded = min(Double(range.upperBound), max(Double(range.lowerBound), value.rounded(.towardZero)))
        return Int(bounded)
    }

    var command: NearbyCommand {
        NearbyCommand(lat: lat, lng: lng, radius: radius, limit: limit)
    }

    /// `lat`, `lng`, `radius`, `limit` as the snapshot route reads them.
    var snapshotQuery: String {
        func text(_ n: Double) -> String { n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n) }
        return "lat=\(text(lat))&lng=\(text(lng))&radius=\(text(radius))&limit=\(limit)"
    }
}

/// `{name, ticker?, isPublic?, sector?, distanceM, price?, changePct?, location}`.
struct WidgetNearbyItem: Codable, Sendable, Equatable {
    var name: String
    var ticker: String?
    var isPublic: Bool?
    var sector: String?
    var distanceM: Double
    var price: Double?
    var changePct: Double?
    var location: LatLng
}

/// `GET /v1/widget/nearby`'s answer.
struct WidgetNearbyResponse: Codable, Sendable, Equatable {
    var origin: LatLng
    var items: [WidgetNearbyItem]
    var mapSnapshotUrl: String?
    var generatedAt: String
}
