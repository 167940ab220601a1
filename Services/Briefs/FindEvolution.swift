import BriefsCore
import Contracts
import Foundation
import Geo
import MarketData
import Messaging
import Postgres
import Runtime
import Scheduling
import ServiceKit

/// `find_evolution` (docs/COMPATIBILITY.md#push-events), the I/O around `FindEvolutionRules`: the highest tier pushed
/// per find in `briefs.find_tiers`, so at most four ever per find and nothing after a drawdown and recovery; the
/// quotes, and up to 3 uncached geocodes for the "near <place>" clause (cache hits free; the place is the centre of the
/// find's geohash-6 tile, never invented). `briefs.find_evolution.scan.v1` without a user id expands into one command
/// per user with priced finds, keyed by user id. Each push goes out after the reply under a claim
/// `(find_evolution.push, <findId>:<tier>)`; the tier is recorded only once it was published, and the dispatcher's
/// `evo:<findId>` → tier dedupe is the last line.
struct FindEvolution: Sendable {
    static let job = "find_evolution.push"

    /// Version 105: the highest tier pushed per find.
    static let migrations: [Migration] = [
        Migration(
            version: 105, name: "find evolution tiers",
            sql: """
                CREATE TABLE IF NOT EXISTS briefs.find_tiers (
                    find_id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    tier INTEGER NOT NULL,
                    pushed_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE INDEX IF NOT EXISTS find_tiers_user_idx ON briefs.find_tiers (user_id);
                """)
    ]

    let db: PostgresPool
    let finds: FindsReadModel
    let market: MarketDataClient
    let geocoder: ReverseGeocoder
    let claims: SlotClaims
    let scheduled: ScheduledRuns
    let context: ServiceContext

    /// `briefs.find_evolution.scan.v1`.
    func scan(_ command: ScanFindEvolutionCommand) async throws -> Reply {
        guard let userId = command.userId else {
            let finds = self.finds
            let users = try await scheduled.expand(
                name: ScanFindEvolutionCommand.name,
                users: { try await finds.usersWithPricedFinds(after: $0, limit: $1) }
            ) { ScanFindEvolutionCommand(userId: $0) }
            return .json(202, ["users": users])
        }
        let priced = try await finds.pricedFinds(userId: userId)
        guard !priced.isEmpty else { return .json(200, ["due": 0]) }
        let prices = await quotes(FindEvolutionRules.symbols(priced))
        let rows = try await db.query(
            "SELECT find_id, tier FROM briefs.find_tiers WHERE user_id = \(userId) AND find_id = ANY(\(priced.map(\.findId)))"
        )
        let pushed = Dictionary(
            rows.compactMap { row in row.string("find_id").flatMap { id in row.int("tier").map { (id, $0) } } }
        ) { max($0, $1) }
        let due = FindEvolutionRules.due(priced, prices: prices, pushed: pushed)
        var requests: [(due: FindEvolutionRules.Due, body: [UInt8])] = []
        var geocodes = FindEvolutionRules.maxGeocodes
        for item in due {
            let place = await place(item.find, budget: &geocodes)
            let push = FindEvolutionRules.push(
                userId: userId, find: item.find, ticker: item.ticker, tier: item.tier, pct: item.pct, place: place)
            requests.append((item, Array(try JSONEncoder().encode(push))))
        }
        let (db, claims, context) = (self.db, self.claims, self.context)
        let ready = requests
        return Reply.json(200, ["due": ready.count]).then {
            for (item, body) in ready {
                let slot = "\(item.find.findId):\(item.tier)"
                let outcome = try await claims.once(
                    job: Self.job, slot: slot, lease: .seconds(60), deadline: .now + .seconds(5)
                ) {
                    // Recorded only once published; a crash in between costs one dispatcher-deduped repeat.
                    guard await publishRetrying(context: context, topic: Topics.pushRequests, key: userId, value: body)
                    else { return false }
                    return await Self.recordTier(db: db, findId: item.find.findId, userId: userId, tier: item.tier)
                }
                if outcome == .failed || outcome == .stillHeld { throw PushNotDelivered(slot: "\(Self.job) \(slot)") }
            }
        }
    }

    /// Records the tier pushed for a find; monotonic, so a lower tier recorded late never lowers a higher one.
    private static func recordTier(db: PostgresPool, findId: String, userId: String, tier: Int) async -> Bool {
        (try? await db.execute(
            """
            INSERT INTO briefs.find_tiers (find_id, user_id, tier) VALUES (\(findId), \(userId), \(tier))
            ON CONFLICT (find_id) DO UPDATE
                SET tier = GREATEST(briefs.find_tiers.tier, EXCLUDED.tier), pushed_at = clock_timestamp()
            """)) != nil
    }

    /// Prices by symbol, one quote each, in parallel.
    private func quotes(_ tickers: [String]) async -> [String: Double] {
        let market = self.market
        return await withTaskGroup(of: (String, Double?).self) { group in
            for ticker in tickers {
                group.addTask { (ticker, await market.quote(ticker)?.price) }
            }
            var out: [String: Double] = [:]
            for await (ticker, price) in group { if let price, price.isFinite { out[ticker] = price } }
            return out
        }
    }

    /// The neighbourhood (else city) at the find's tile centre: a cached one is free, an uncached one spends budget.
    private func place(_ find: FindRow, budget: inout Int) async -> String? {
        guard let tile = find.geohash6, let centre = Geohash.center(tile) else { return nil }
        if let cached = await geocoder.cachedPlace(lat: centre.lat, lng: centre.lng) {
            return cached.neighborhood ?? cached.city
        }
        guard budget > 0 else { return nil }
        budget -= 1
        let found = await geocoder.place(lat: centre.lat, lng: centre.lng)
        return found?.neighborhood ?? found?.city
    }
}
