import Contracts
import Finance
import Foundation
import Geo

/// The uncaught-nearby policy (docs/COMPATIBILITY.md#movement), pure: what counts as a candidate, how it scores, which
/// one wins, the budgets and the push's wire strings. Everything here is a function of its arguments (no clock, store
/// or network), so the whole policy is checked by unit tests; the binary's `UncaughtNearby` feeds it.
public enum UncaughtPolicy {
    public static let radius = 800
    public static let placeLimit = 12
    public static let minScore = 3
    public static let perDay = 1
    public static let perWeek = 3

    /// A nearby public brand with a ticker that is in neither the user's finds nor their default watchlist; its
    /// place's fields (`ticker`, `brand`, `sector`, `lat`…) read through.
    @dynamicMemberLookup
    public struct Candidate: Sendable, Equatable {
        public let place: NearbyBrand
        /// Metres from the fix.
        public let distance: Double
        /// Intraday % change, only from a real quote.
        public var changePct: Double?
        /// This ticker was already pushed to this device (a veto).
        public let previouslyPushed: Bool

        public subscript<T>(dynamicMember field: KeyPath<NearbyBrand, T>) -> T { place[keyPath: field] }

        public init(place: NearbyBrand, distance: Double, changePct: Double?, previouslyPushed: Bool) {
            self.place = place
            self.distance = distance
            self.changePct = changePct
            self.previouslyPushed = previouslyPushed
        }
    }

    /// What the scoring knows about the user.
    public struct Context: Sendable, Equatable {
        /// Sectors the user finds or watchlists.
        public let affinitySectors: Set<String>
        /// Sectors with at least one find.
        public let sectorsWithFinds: Set<String>
        /// The user already has a find in the fix's geohash-6 tile.
        public let tileHasFinds: Bool

        public init(affinitySectors: Set<String>, sectorsWithFinds: Set<String>, tileHasFinds: Bool) {
            self.affinitySectors = affinitySectors
            self.sectorsWithFinds = sectorsWithFinds
            self.tileHasFinds = tileHasFinds
        }
    }

    public enum Reason: String, Sendable {
        case sectorAffinity = "sector_affinity", emptySector = "empty_sector", firstInTile = "first_in_tile"
        case intradayMove = "intraday_move", alreadyPushed = "already_pushed"
    }

    public struct Scored: Sendable, Equatable {
        public let candidate: Candidate
        public let score: Int
        public let reasons: [Reason]
    }

    /// A sector's canonical GICS name, else the trimmed text; nil when empty.
    public static func sector(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return SectorAliases.canonical(trimmed) ?? trimmed
    }

    /// +2 sector affinity, +2 a sector with no finds, +1 no find in this tile yet, +1 |intraday move| > 3 %, −100
    /// already pushed to this device. Affinity and empty sector add up: a watchlisted sector never caught scores both.
    public static func score(_ candidate: Candidate, _ context: Context) -> (score: Int, reasons: [Reason]) {
        var score = 0
        var reasons: [Reason] = []
        if let sector = sector(candidate.sector) {
            if context.affinitySectors.contains(sector) {
                score += 2
                reasons.append(.sectorAffinity)
            }
            if !context.sectorsWithFinds.contains(sector) {
                score += 2
                reasons.append(.emptySector)
            }
        }
        if !context.tileHasFinds {
            score += 1
            reasons.append(.firstInTile)
        }
        if let pct = candidate.changePct, pct.isFinite, abs(pct) > 3 {
            score += 1
            reasons.append(.intradayMove)
        }
        if candidate.previouslyPushed {
            score -= 100
            reasons.append(.alreadyPushed)
        }
        return (score, reasons)
    }

    /// The scoring context from the user's finds and default-list entries (an entry's own sector, else the seed's).
    public static func context(finds: [FindRow], watchlist: [WatchEntry], fixTile: String?) -> Context {
        let withFinds = Set(finds.compactMap { sector($0.sector) })
        var affinity = withFinds
        for entry in watchlist {
            if let found = sector(entry.sector) ?? sector(BrandSeed.shared.entry(forTicker: entry.ticker)?.sector) {
                affinity.insert(found)
            }
        }
        let tiles = Set(finds.compactMap(\.geohash6))
        return Context(
            affinitySectors: affinity, sectorsWithFinds: withFinds, tileHasFinds: fixTile.map(tiles.contains) ?? false)
    }

    /// A nearby place the seed lists as a public brand.
    public struct NearbyBrand: Sendable, Equatable {
        public let placeId: String
        public let brand: String
        public let ticker: String
        public let sector: String?
        public let lat: Double
        public let lng: Double

        public init(placeId: String, brand: String, ticker: String, sector: String?, lat: Double, lng: Double) {
            self.placeId = placeId
            self.brand = brand
            self.ticker = ticker
            self.sector = sector
            self.lat = lat
            self.lng = lng
        }
    }

    /// Candidates: brands not `owned`, one per ticker (the nearest), flagged when already `pushed` to this device.
    public static func candidates(
        _ nearby: [NearbyBrand], lat: Double, lng: Double, owned: Set<String>, pushed: Set<String>
    ) -> [Candidate] {
        var byTicker: [String: Candidate] = [:]
        for brand in nearby where !owned.contains(brand.ticker) && brand.lat.isFinite && brand.lng.isFinite {
            let candidate = Candidate(
                place: brand, distance: haversineMetres(lat1: lat, lng1: lng, lat2: brand.lat, lng2: brand.lng),
                changePct: nil, previouslyPushed: pushed.contains(brand.ticker))
            if let kept = byTicker[brand.ticker], kept.distance <= candidate.distance { continue }
            byTicker[brand.ticker] = candidate
        }
        return byTicker.values.sorted { ($0.distance, $0.ticker) < ($1.distance, $1.ticker) }
    }

    /// The highest score ≥ 3 (ties: the nearer), or nil: a silent arrival.
    public static func winner(_ candidates: [Candidate], _ context: Context) -> Scored? {
        var best: Scored?
        for candidate in candidates {
            let (score, reasons) = score(candidate, context)
            guard score >= minScore else { continue }
            if let current = best,
                score < current.score || (score == current.score && candidate.distance >= current.candidate.distance)
            {
                continue
            }
            best = Scored(candidate: candidate, score: score, reasons: reasons)
        }
        return best
    }

    /// Why a device's budget is spent, or nil when it may still be pushed.
    public static func budgetSpent(today: Int, thisWeek: Int) -> String? {
        if today >= perDay { return "day_budget" }
        if thisWeek >= perWeek { return "week_budget" }
        return nil
    }

    /// `YYYYMMDD` of the Monday (UTC) starting `date`'s week.
    public static func weekKey(_ date: Date) -> String { BriefsCalendar.weekKey(date) }

    /// `NNm` rounded to 10 m (at least 10) under a kilometre, else `x.xkm`.
    public static func distance(_ metres: Double) -> String {
        if metres < 1000 { return "\(max(10, Int((metres / 10).rounded()) * 10))m" }
        return String(format: "%.1fkm", metres / 1000)
    }

    public static func body(brand: String, ticker: String, metres: Double?) -> String {
        guard let metres, metres.isFinite, metres >= 0 else {
            return "\(brand) (\(ticker)) is nearby and isn't in your universe yet"
        }
        return "\(brand) (\(ticker)) is \(distance(metres)) away and isn't in your universe yet"
    }

    /// The map target's one-line reason (a collection gap, never advice).
    public static func reason(_ scored: Scored) -> String {
        let (brand, sector) = (scored.candidate.brand, sector(scored.candidate.sector))
        if scored.reasons.contains(.sectorAffinity), let sector {
            return "\(brand) matches the \(sector) companies you already explore."
        }
        if scored.reasons.contains(.emptySector), let sector {
            return "\(brand) adds a nearby \(sector) company to explore."
        }
        if scored.reasons.contains(.firstInTile) { return "\(brand) is a new company near this part of your map." }
        return "\(brand) is nearby and not in your universe yet."
    }

    /// `uncaught_nearby` (docs/COMPATIBILITY.md#push-events) to that token only; the dispatcher's dedupe marks the
    /// ticker pushed to this device and the day's and week's counts (`spentToday`/`spentThisWeek` before this push).
    public static func push(
        userId: String, tokenId: String, winner: Scored, day: String, week: String, spentToday: Int, spentThisWeek: Int
    ) -> PushRequest {
        let c = winner.candidate
        return PushRequest(
            id: "uncaught_nearby-\(day)-\(tokenId)-\(c.ticker)", userIds: [userId], tokenId: tokenId,
            eventKey: .uncaughtNearby, eventKind: "uncaught_nearby", title: "Uncaught nearby — \(c.brand)",
            body: body(brand: c.brand, ticker: c.ticker, metres: c.distance),
            data: [
                "kind": .string("uncaught_nearby"), "ticker": .string(c.ticker), "lat": .number(c.lat),
                "lng": .number(c.lng),
            ],
            target: PushTarget(
                type: "map",
                fields: [
                    "placeId": .string(String(c.placeId.prefix(256))), "ticker": .string(String(c.ticker.prefix(24))),
                    "lat": .number(c.lat), "lng": .number(c.lng), "label": .string(String(c.brand.prefix(160))),
                    "reason": .string(String(reason(winner).prefix(240))),
                ]),
            dedupe: [
                PushDedupe(slot: "uncaught:\(tokenId):\(c.ticker)", key: "1"),
                PushDedupe(slot: "uncaught_day:\(tokenId)", key: "\(day):\(spentToday + 1)"),
                PushDedupe(slot: "uncaught_week:\(tokenId)", key: "\(week):\(spentThisWeek + 1)"),
            ])
    }
}
