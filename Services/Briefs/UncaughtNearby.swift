import BriefsCore
import Contracts
import Finance
import Foundation
import Geo
import MarketData
import Messaging
import Places
import Postgres
import Runtime
import ServiceKit

/// The movement scheduler's uncaught-nearby branch (docs/COMPATIBILITY.md#movement) for one device that has a fresh
/// fix: its own anchor (`uncaught_lat/lng` in `briefs.device_movement`, never the local-brief one) and its own budgets
/// and once-per-ticker record (`briefs.uncaught_pushes`, one row per push decided for the device). A move is a decision
/// — `pushed`, `day_budget`, `week_budget`, `no_interest`, `no_candidates`, `below_threshold` — and every decision
/// advances the anchor; `not_moved` and `nearby_failed` leave it (the next scan tries again). A push is decided in one
/// transaction that locks the device row, re-counts the budgets, records the push (unpublished) and moves the
/// anchor; it is published after the reply and then marked published. A decided push not yet published (a crash in
/// between) is published by the device's next command before anything else is decided.
struct UncaughtNearby: Sendable {
    /// Version 104: the branch's anchor and its per-device push record.
    static let migrations: [Migration] = [
        Migration(
            version: 104, name: "uncaught nearby",
            sql: """
                ALTER TABLE briefs.device_movement ADD COLUMN IF NOT EXISTS uncaught_lat DOUBLE PRECISION;
                ALTER TABLE briefs.device_movement ADD COLUMN IF NOT EXISTS uncaught_lng DOUBLE PRECISION;
                CREATE INDEX IF NOT EXISTS device_movement_uncaught_idx ON briefs.device_movement (located_at DESC)
                    WHERE uncaught_nearby AND notifications_enabled;
                CREATE TABLE IF NOT EXISTS briefs.uncaught_pushes (
                    token_id TEXT NOT NULL,
                    ticker TEXT NOT NULL,
                    day TEXT NOT NULL,
                    week TEXT NOT NULL,
                    request JSONB NOT NULL,
                    published BOOLEAN NOT NULL DEFAULT false,
                    decided_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
                    PRIMARY KEY (token_id, ticker)
                );
                CREATE INDEX IF NOT EXISTS uncaught_pushes_unpublished_idx ON briefs.uncaught_pushes (token_id)
                    WHERE NOT published;
                """)
    ]

    let db: PostgresPool
    let finds: FindsReadModel
    let watchlists: WatchlistStore
    let nearby: NearbyPlaces
    let market: MarketDataClient
    let context: ServiceContext

    func decide(_ device: Movement.Device, now: Date, deadline: ContinuousClock.Instant) async throws
        -> Movement.Decision
    {
        if !device.pushUnpublished,
            !MovementPolicy.moved(
                anchorLat: device.anchorLat, anchorLng: device.anchorLng, lat: device.lat, lng: device.lng)
        {
            return .init(outcome: "not_moved", afterReply: nil)
        }
        let (day, week) = (BriefsCalendar.day(now), UncaughtPolicy.weekKey(now))
        let spent = try await Self.spent(db.query, tokenId: device.tokenId, day: day, week: week)
        if let (ticker, request) = spent.unpublished {
            return .init(outcome: "pushed", afterReply: publish(device, ticker: ticker, body: request))
        }
        if let refused = UncaughtPolicy.budgetSpent(today: spent.today, thisWeek: spent.thisWeek) {
            return try await advance(device, outcome: refused)
        }
        async let found = finds.finds(userId: device.userId)
        async let listed = watchlists.listWithEntries(userId: device.userId, listId: nil)
        let (userFinds, entries) = (try await found, try await listed?.entries ?? [])
        if userFinds.isEmpty && entries.isEmpty { return try await advance(device, outcome: "no_interest") }
        guard
            let places = await nearby.ranked(
                lat: device.lat, lng: device.lng, radius: UncaughtPolicy.radius, limit: UncaughtPolicy.placeLimit,
                deadline: deadline)
        else { return .init(outcome: "nearby_failed", afterReply: nil) }
        let brands = places.compactMap { ranked in
            ranked.listing.map { listing in
                UncaughtPolicy.NearbyBrand(
                    placeId: ranked.place.id, brand: ranked.place.joinName, ticker: listing.ticker.uppercased(),
                    sector: listing.sector, lat: ranked.place.location.lat, lng: ranked.place.location.lng)
            }
        }
        let owned = Set(userFinds.compactMap(\.ticker) + entries.map { $0.ticker.uppercased() })
        var candidates = UncaughtPolicy.candidates(
            brands, lat: device.lat, lng: device.lng, owned: owned, pushed: spent.tickers)
        if candidates.isEmpty { return try await advance(device, outcome: "no_candidates") }
        let moves = await intradayMoves(candidates.filter { !$0.previouslyPushed }.map(\.ticker))
        for index in candidates.indices { candidates[index].changePct = moves[candidates[index].ticker] }
        let context = UncaughtPolicy.context(
            finds: userFinds, watchlist: entries, fixTile: Geohash.encode(lat: device.lat, lng: device.lng))
        guard let winner = UncaughtPolicy.winner(candidates, context) else {
            return try await advance(device, outcome: "below_threshold")
        }
        return try await record(device, winner: winner, day: day, week: week)
    }

    /// Moves the anchor to the fix: the decision was made.
    private func advance(_ device: Movement.Device, outcome: String) async throws -> Movement.Decision {
        try await db.execute(Self.moveAnchor(device))
        return .init(outcome: outcome, afterReply: nil)
    }

    /// The statement that moves the branch's anchor to the device's fix.
    private static func moveAnchor(_ device: Movement.Device) -> PostgresQuery {
        """
        UPDATE briefs.device_movement SET uncaught_lat = \(device.lat), uncaught_lng = \(device.lng)
        WHERE token_id = \(device.tokenId)
        """
    }

    /// The push decided in one transaction: device row locked, budgets re-counted, push recorded, anchor moved.
    private func record(_ device: Movement.Device, winner: UncaughtPolicy.Scored, day: String, week: String)
        async throws -> Movement.Decision
    {
        let ticker = winner.candidate.ticker
        // Either the push's body or why it was refused after all (a concurrent command for the device won).
        let decided: Result<[UInt8], Refused> = try await db.transaction { connection in
            _ = try await connection.query(
                "SELECT 1 FROM briefs.device_movement WHERE token_id = \(device.tokenId) FOR UPDATE")
            let spent = try await Self.spent(connection.query, tokenId: device.tokenId, day: day, week: week)
            try await connection.execute(Self.moveAnchor(device))
            if let refused = UncaughtPolicy.budgetSpent(today: spent.today, thisWeek: spent.thisWeek) {
                return .failure(Refused(outcome: refused))
            }
            if spent.tickers.contains(ticker) { return .failure(Refused(outcome: "below_threshold")) }
            let push = UncaughtPolicy.push(
                userId: device.userId, tokenId: device.tokenId, winner: winner, day: day, week: week,
                spentToday: spent.today, spentThisWeek: spent.thisWeek)
            let body = Array(try JSONEncoder().encode(push))
            try await connection.execute(
                """
                INSERT INTO briefs.uncaught_pushes (token_id, ticker, day, week, request)
                VALUES (\(device.tokenId), \(ticker), \(day), \(week), \(PostgresJSON(String(decoding: body, as: UTF8.self))))
                """)
            return .success(body)
        }
        switch decided {
        case .success(let body):
            return .init(outcome: "pushed", afterReply: publish(device, ticker: ticker, body: body))
        case .failure(let refused): return .init(outcome: refused.outcome, afterReply: nil)
        }
    }

    private struct Refused: Error {
        let outcome: String
    }

    /// Publishes a decided push (retried until acknowledged), then marks it published.
    private func publish(_ device: Movement.Device, ticker: String, body: [UInt8]) -> @Sendable () async throws -> Void
    {
        let (db, context) = (self.db, self.context)
        return {
            guard await publishRetrying(context: context, topic: Topics.pushRequests, key: device.userId, value: body)
            else {
                throw PushNotDelivered(slot: "uncaught_nearby \(device.tokenId) \(ticker)")
            }
            try await db.execute(
                "UPDATE briefs.uncaught_pushes SET published = true WHERE token_id = \(device.tokenId) AND ticker = \(ticker)"
            )
        }
    }

    /// What a device's push record says: pushes decided today and this week, every ticker ever decided, and a
    /// decided push not yet published (its ticker and request), if any.
    private struct Spent {
        var today = 0
        var thisWeek = 0
        var tickers = Set<String>()
        var unpublished: (ticker: String, request: [UInt8])?
    }

    private static func spent(
        _ query: (PostgresQuery) async throws -> [PostgresRow], tokenId: String, day: String, week: String
    ) async throws -> Spent {
        let rows = try await query(
            "SELECT ticker, day, week, published, request::text AS request FROM briefs.uncaught_pushes WHERE token_id = \(tokenId)"
        )
        var spent = Spent()
        for row in rows {
            guard let ticker = row.string("ticker") else { continue }
            spent.tickers.insert(ticker)
            if row.string("day") == day { spent.today += 1 }
            if row.string("week") == week { spent.thisWeek += 1 }
            if row.bool("published") == false, let request = row.string("request") {
                spent.unpublished = (ticker, Array(request.utf8))
            }
        }
        return spent
    }

    /// Intraday % changes from real quotes, for the candidates still in play (one quote per ticker, in parallel).
    private func intradayMoves(_ tickers: [String]) async -> [String: Double] {
        let market = self.market
        return await withTaskGroup(of: (String, Double?).self) { group in
            for ticker in Set(tickers) {
                group.addTask {
                    let pct = await market.quote(ticker)?.changePct
                    return (ticker, pct.flatMap { $0.isFinite ? $0 : nil })
                }
            }
            var out: [String: Double] = [:]
            for await (ticker, pct) in group { if let pct { out[ticker] = pct } }
            return out
        }
    }
}
