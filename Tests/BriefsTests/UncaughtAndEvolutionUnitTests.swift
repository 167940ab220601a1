import BriefsCore
import Contracts
import Foundation
import Testing

/// The uncaught-nearby policy and find evolution's tiers, pure (docs/COMPATIBILITY.md#push-events, #movement).
@Suite struct UncaughtAndEvolutionUnitTests {
    typealias Policy = UncaughtPolicy

    static func candidate(
        _ ticker: String, sector: String?, distance: Double = 100, pct: Double? = nil, pushed: Bool = false
    ) -> Policy.Candidate {
        Policy.Candidate(
            place: Policy.NearbyBrand(
                placeId: "p-\(ticker)", brand: "\(ticker) Brand", ticker: ticker, sector: sector, lat: 1, lng: 2),
            distance: distance, changePct: pct, previouslyPushed: pushed)
    }

    static func find(_ id: String, ticker: String?, sector: String?, tile: String? = nil, price: Double? = nil)
        -> FindRow
    {
        FindRow(
            findId: id, brand: "Brand \(id)", ticker: ticker, sector: sector, geohash6: tile, foundPrice: price)
    }

    @Test func scoringFollowsTheContractTable() {
        let context = Policy.Context(
            affinitySectors: ["Consumer Discretionary", "Information Technology"],
            sectorsWithFinds: ["Consumer Discretionary"],
            tileHasFinds: false)
        // Affinity (+2) in a sector with finds: no empty-sector bonus; first in tile (+1).
        #expect(Policy.score(Self.candidate("A", sector: "Consumer Discretionary"), context).score == 3)
        // Watchlisted sector never caught: affinity and empty sector both (+4), tile (+1).
        let both = Policy.score(Self.candidate("B", sector: "tech"), context)
        #expect(both.score == 5 && both.reasons == [.sectorAffinity, .emptySector, .firstInTile])
        // A new sector without affinity: +2 +1; an intraday move over 3 % adds 1 (not at exactly 3).
        #expect(Policy.score(Self.candidate("C", sector: "Energy"), context).score == 3)
        #expect(Policy.score(Self.candidate("C", sector: "Energy", pct: -3.2), context).score == 4)
        #expect(Policy.score(Self.candidate("C", sector: "Energy", pct: 3), context).score == 3)
        // No sector: only the tile; already pushed to this device: vetoed.
        #expect(Policy.score(Self.candidate("D", sector: nil), context).score == 1)
        #expect(Policy.score(Self.candidate("B", sector: "tech", pushed: true), context).score == -95)
        let visited = Policy.Context(affinitySectors: [], sectorsWithFinds: [], tileHasFinds: true)
        #expect(Policy.score(Self.candidate("E", sector: "Energy"), visited).score == 2)
    }

    @Test func theWinnerScoresAtLeastThreeAndTiesGoToTheNearer() throws {
        let context = Policy.Context(affinitySectors: ["Energy"], sectorsWithFinds: ["Energy"], tileHasFinds: true)
        // Energy: affinity only (2) — below the threshold; Utilities: empty sector (2) + move (1) = 3.
        #expect(Policy.winner([Self.candidate("XOM", sector: "Energy")], context) == nil)
        let far = Self.candidate("DUK", sector: "Utilities", distance: 500, pct: 5)
        let near = Self.candidate("NEE", sector: "Utilities", distance: 200, pct: 4)
        let winner = try #require(Policy.winner([far, near, Self.candidate("XOM", sector: "Energy")], context))
        #expect(winner.candidate.ticker == "NEE" && winner.score == 3)
        #expect(Policy.winner([Self.candidate("NEE", sector: "Utilities", pct: 4, pushed: true)], context) == nil)
    }

    @Test func candidatesSkipOwnedTickersAndKeepTheNearestPerTicker() {
        let brands = [
            Policy.NearbyBrand(
                placeId: "s1", brand: "Starbucks", ticker: "SBUX", sector: "Consumer Discretionary", lat: 0.005, lng: 0),
            Policy.NearbyBrand(
                placeId: "s2", brand: "Starbucks", ticker: "SBUX", sector: "Consumer Discretionary", lat: 0.001, lng: 0),
            Policy.NearbyBrand(
                placeId: "m1", brand: "McDonald's", ticker: "MCD", sector: "Consumer Discretionary", lat: 0.002, lng: 0),
            Policy.NearbyBrand(
                placeId: "t1", brand: "Target", ticker: "TGT", sector: "Consumer Staples", lat: 0.003, lng: 0),
        ]
        let out = Policy.candidates(brands, lat: 0, lng: 0, owned: ["MCD"], pushed: ["TGT"])
        #expect(out.map(\.ticker) == ["SBUX", "TGT"] && out[0].placeId == "s2" && abs(out[0].distance - 111.2) < 1)
        #expect(!out[0].previouslyPushed && out[1].previouslyPushed)
    }

    @Test func contextSectorsComeFromFindsAndTheWatchlistAndTheTileFromFinds() {
        let finds = [Self.find("1", ticker: "SBUX", sector: "Consumer Discretionary", tile: "9q8yyk")]
        let entries = [
            WatchEntry(ticker: "AAPL", sector: "Technology", source: .manual, createdAt: "2026-01-01T00:00:00.000Z"),
            WatchEntry(ticker: "XOM", source: .manual, createdAt: "2026-01-01T00:00:00.000Z"),
        ]
        let context = Policy.context(finds: finds, watchlist: entries, fixTile: "9q8yyk")
        #expect(context.sectorsWithFinds == ["Consumer Discretionary"])
        #expect(context.affinitySectors == ["Consumer Discretionary", "Information Technology", "Energy"])
        #expect(context.tileHasFinds && !Policy.context(finds: finds, watchlist: [], fixTile: "9q8yym").tileHasFinds)
    }

    @Test func budgetsAreOnePerDayAndThreePerMondayWeek() {
        #expect(Policy.budgetSpent(today: 0, thisWeek: 0) == nil)
        #expect(Policy.budgetSpent(today: 0, thisWeek: 2) == nil)
        #expect(Policy.budgetSpent(today: 1, thisWeek: 1) == "day_budget")
        #expect(Policy.budgetSpent(today: 0, thisWeek: 3) == "week_budget")
        // 2026-12-01 is a Tuesday; 2026-11-29 a Sunday (its week began Monday 11-23); a Monday is its own week.
        let day = { (seconds: Double) in Date(timeIntervalSince1970: seconds) }
        #expect(Policy.weekKey(day(1_796_126_400)) == "20261130")  // 2026-12-01T12:00:00Z
        #expect(Policy.weekKey(day(1_795_996_799)) == "20261123")  // 2026-11-29T23:59:59Z
        #expect(Policy.weekKey(day(1_795_996_800)) == "20261130")  // 2026-11-30T00:00:00Z
    }

    @Test func theUncaughtPushIsTheContractRowForThatTokenOnly() throws {
        #expect(Policy.distance(4) == "10m" && Policy.distance(236) == "240m" && Policy.distance(994) == "990m")
        #expect(Policy.distance(1049) == "1.0km" && Policy.distance(1260) == "1.3km")
        #expect(
            Policy.body(brand: "Target", ticker: "TGT", metres: nil)
                == "Target (TGT) is nearby and isn't in your universe yet")
        let winner = try #require(
            Policy.winner(
                [Self.candidate("TGT", sector: "Consumer Staples", distance: 236)],
                Policy.Context(affinitySectors: [], sectorsWithFinds: [], tileHasFinds: false)))
        let push = Policy.push(
            userId: "u1", tokenId: "push_1", winner: winner, day: "20261201", week: "20261130", spentToday: 0,
            spentThisWeek: 2)
        #expect(push.title == "Uncaught nearby — TGT Brand" && push.tokenId == "push_1" && push.userIds == ["u1"])
        #expect(
            push.body == "TGT Brand (TGT) is 240m away and isn't in your universe yet"
                && push.eventKey == .uncaughtNearby)
        #expect(push.data["kind"] == .string("uncaught_nearby") && push.data["ticker"] == .string("TGT"))
        #expect(push.target.type == "map" && push.target.fields["placeId"] == .string("p-TGT"))
        #expect(push.target.fields["reason"] == .string("TGT Brand adds a nearby Consumer Staples company to explore."))
        #expect(
            push.dedupe == [
                PushDedupe(slot: "uncaught:push_1:TGT", key: "1"),
                PushDedupe(slot: "uncaught_day:push_1", key: "20261201:1"),
                PushDedupe(slot: "uncaught_week:push_1", key: "20261130:3"),
            ])
    }

    @Test func evolutionTiersAreTheHighestCrossedAndMonotonic() {
        #expect(
            FindEvolutionRules.tier(9.99) == nil && FindEvolutionRules.tier(10) == 10
                && FindEvolutionRules.tier(26) == 25)
        #expect(
            FindEvolutionRules.tier(51) == 50 && FindEvolutionRules.tier(250) == 100
                && FindEvolutionRules.tier(-40) == nil)
        #expect(FindEvolutionRules.tier(.nan) == nil && FindEvolutionRules.change(foundPrice: 0, price: 5) == nil)
        #expect(FindEvolutionRules.change(foundPrice: 100, price: 126) == 26)
        let finds = (1...6).map { Self.find("\($0)", ticker: "T\($0)", sector: nil, price: 100) }
        let prices = ["T1": 126.0, "T2": 151, "T3": 90, "T4": 111, "T5": 200, "T6": 130]
        // Newest first: T1 was pushed at 25 already; T3 is down; the cap of 3 keeps T6 for the next tick.
        let due = FindEvolutionRules.due(finds, prices: prices, pushed: ["1": 25])
        #expect(due.map { "\($0.find.findId):\($0.tier)" } == ["2:50", "4:10", "5:100"])
        #expect(FindEvolutionRules.due(finds, prices: ["T1": 126], pushed: ["1": 25]).isEmpty)
        #expect(FindEvolutionRules.due(finds, prices: ["T1": 151], pushed: ["1": 25]).map(\.tier) == [50])
        // Unpriced and unquoted finds are skipped, never estimated.
        #expect(
            FindEvolutionRules.due([Self.find("9", ticker: "T9", sector: nil)], prices: ["T9": 500], pushed: [:])
                .isEmpty)
    }

    @Test func theEvolutionPushIsTheContractRow() throws {
        let find = Self.find("f1", ticker: "CMG", sector: nil, price: 100)
        let spatial = FindEvolutionRules.push(
            userId: "u1", find: find, ticker: "CMG", tier: 25, pct: 26.4, place: "Mission")
        #expect(
            spatial.title == "Brand f1 evolved"
                && spatial.body == "The Brand f1 you spotted near Mission is up 26% since you found it")
        #expect(spatial.dedupe == [PushDedupe(slot: "evo:f1", key: "25")] && spatial.tokenId == nil)
        #expect(spatial.data["tier"] == .number(25) && spatial.data["place"] == .string("Mission"))
        #expect(spatial.target == PushTarget(type: "company", fields: ["ticker": .string("CMG")]))
        let plain = FindEvolutionRules.push(userId: "u1", find: find, ticker: "CMG", tier: 50, pct: 50.6, place: nil)
        #expect(plain.body == "Brand f1 evolved — up 51% since you found it" && plain.data["place"] == nil)
        // A found price of 1e-300 from an outside producer's event: a finite, huge change is clamped, never a trap.
        let huge = try #require(FindEvolutionRules.change(foundPrice: 1e-300, price: 100))
        #expect(huge.isFinite && FindEvolutionRules.tier(huge) == 100)
        #expect(
            FindEvolutionRules.body(brand: "X", pct: huge, place: nil) == "X evolved — up 1000000% since you found it")
    }
}
