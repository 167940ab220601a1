import Contracts
import Finance
import Foundation
import Geo

/// The uncaught-nearby policy (docs/COMPATIBILITY.md#movement), pure: what counts as a candidate, how it scores, which
/// one wins, the budgets and the push's wire strings. Everything here is a function of its arguments (no clock, store
/// or network), so the whole policy is checked by unit tests; `UncaughtNearby` feeds it.
enum UncaughtPolicy {
    static let radius = 800
    static let placeLimit = 12
    static let minScore = 3
    static let perDay = 1
    static let perWeek = 3

    /// A nearby public brand with a ticker that is in neither the user's finds nor their default watchlist; its
    /// place's fields (`ticker`, `brand`, `sector`, `lat`…) read through.
    @dynamicMemberLookup
    struct Candidate: Sendable, Equatable {
        let place: NearbyBrand
        /// Metres from the fix.
        let distance: Double
        /// Intraday % change, only from a real quote.
        var changePct: Double?
        /// This ticker was already pushed to this device (a veto).
        let previouslyPushed: Bool

        subscript<T>(dynamicMember field: KeyPath<NearbyBrand, T>) -> T { place[keyPath: field] }
    }

    /// What the scoring knows about the user.
    struct Context: Sendable, Equatable {
        /// Sectors the user finds or watchlists.
        let affinitySectors: Set<String>
        /// Sectors with at least one find.
        let sectorsWithFinds: Set<String>
        /// The user already has a find in the fix's geohash-6 tile.
        let tileHasFinds: Bool
    }

    enum Reason: String, Sendable {
        case sectorAffinity = "sector_affinity", emptySector = "empty_sector", firstInTile = "first_in_tile"
        case intradayMove = "intraday_move", alreadyPushed = "already_pushed"
    }

    struct Scored: Sendable, Equatable {
        let candidate: Candidate
        let score: Int
        let reasons: [Reason]
    }

    /// A sector's canonical GICS name, else the trimmed text; nil when empty.
    static func sector(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
        return SectorAliases.canonical(trimmed) ?? trimmed
    }

    /// +2 sector affinity, +2 a sector with no finds, +1 no find in this tile yet, +1 |intraday move| > 3 %, −100
    /// already pushed to this device. Affinity and empty sector add up: a watchlisted sector never caught scores both.
    static func score(_ candidate: Candidate, _ context: Context) -> (score: Int, reasons: [Reason]) {
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
    static func context(finds: [FindsReadModel.Row], watchlist: [WatchEntry], fixTile: String?) -> Context {
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
    struct NearbyBrand: Sendable, Equatable {
        let placeId: String
        let brand: String
        let ticker: String
        let sector: String?
        let lat: Double
        let lng: Double
    }

    /// Candidates: brands not `owned`, one per ticker (the nearest), flagged when already `pushed` to this device.
    static func candidates(
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
    static func winner(_ candidates: [Candidate], _ context: Context) -> Scored? {
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
    static func budgetSpent(today: Int, thisWeek: Int) -> String? {
        if today >= perDay { return "day_budget" }
        if thisWeek >= perWeek { return "week_budget" }
        return nil
    }

    /// `YYYYMMDD` of the Monday (UTC) starting `date`'s week.
    static func weekKey(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let weekday = calendar.component(.weekday, from: date)  // 1 = Sunday
        let back = (weekday + 5) % 7
        return DailyBriefs.day(calendar.date(byAdding: .day, value: -back, to: date) ?? date)
    }

    /// `NNm` rounded to 10 m (at least 10) under a kilometre, else `x.xkm`.
    static func distance(_ metres: Double) -> String {
        if metres < 1000 { return "\(max(10, Int((metres / 10).rounded()) * 10))m" }
        return String(format: "%.1fkm", metres / 1000)
    }

    static func body(brand: String, ticker: String, metres: Double?) -> String {
        guard let metres, metres.isFinite, metres >= 0 else {
            return "\(brand) (\(ticker)) is nearby and isn't in your universe yet"
        }
        return "\(brand) (\(ticker)) is \(distance(metres)) away and isn't in your universe yet"
    }

    /// The map target's one-line reason (a collection gap, never advice).
    static func reason(_ scored: Scored) -> String {
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
    static func push(
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
