import Contracts
import Foundation
import Runtime

/// `find_evolution`'s rules (docs/COMPATIBILITY.md#push-events): a find whose symbol is up ≥ 10/25/50/100 % since its
/// found price is due once per tier, monotonic — only a tier above the highest already pushed for it; per user and tick
/// at most 50 quotes, 3 pushes and 3 uncached geocodes; and the push's wire strings.
public enum FindEvolutionRules {
    public static let tiers = [100, 50, 25, 10]
    public static let maxQuotes = 50
    public static let maxPushes = 3
    public static let maxGeocodes = 3

    /// The highest tier `pct` reaches, or nil below 10 % (and for anything not finite).
    public static func tier(_ pct: Double) -> Int? {
        guard pct.isFinite else { return nil }
        return tiers.first { pct >= Double($0) }
    }

    /// The % change from the found price; nil without a positive, finite basis and price.
    public static func change(foundPrice: Double, price: Double) -> Double? {
        guard foundPrice.isFinite, price.isFinite, foundPrice > 0 else { return nil }
        return (price - foundPrice) / foundPrice * 100
    }

    /// The symbols to quote: distinct, in the finds' order (newest first), at most 50.
    public static func symbols(_ finds: [FindRow]) -> [String] {
        var seen = Set<String>()
        return Array(finds.compactMap(\.ticker).filter { seen.insert($0).inserted }.prefix(maxQuotes))
    }

    public static func body(brand: String, pct: Double, place: String?) -> String {
        // `pct` comes from an event's found price (any producer): finite but huge must not trap the conversion.
        let rounded = pct.rounded().clampedInt(0...1_000_000) ?? 0
        if let place = place?.trimmingCharacters(in: .whitespaces), !place.isEmpty {
            return "The \(brand) you spotted near \(place) is up \(rounded)% since you found it"
        }
        return "\(brand) evolved — up \(rounded)% since you found it"
    }

    public static func push(userId: String, find: FindRow, ticker: String, tier: Int, pct: Double, place: String?)
        -> PushRequest
    {
        var data: [String: JSONValue] = [
            "kind": .string("find_evolution"), "findId": .string(find.findId), "brand": .string(find.brand),
            "ticker": .string(ticker), "tier": .number(Double(tier)), "changePct": .number(pct),
        ]
        if let place { data["place"] = .string(place) }
        return PushRequest(
            id: "find_evolution-\(find.findId)-\(tier)", userIds: [userId], eventKey: .findEvolution,
            eventKind: "find_evolution", title: "\(find.brand) evolved",
            body: body(brand: find.brand, pct: pct, place: place),
            data: data, target: PushTarget(type: "company", fields: ["ticker": .string(ticker)]),
            dedupe: [PushDedupe(slot: "evo:\(find.findId)", key: String(tier))])
    }

    /// A find that crossed a tier above the highest pushed for it.
    public struct Due: Sendable, Equatable {
        public let find: FindRow
        public let ticker: String
        public let tier: Int
        public let pct: Double
    }

    /// The finds due a push, newest first, at most 3: priced, quoted, a tier above `pushed[findId]`.
    public static func due(_ finds: [FindRow], prices: [String: Double], pushed: [String: Int]) -> [Due] {
        var out: [Due] = []
        for find in finds {
            guard out.count < maxPushes, let ticker = find.ticker, let basis = find.foundPrice,
                let price = prices[ticker],
                let pct = change(foundPrice: basis, price: price), let tier = tier(pct), tier > pushed[find.findId] ?? 0
            else { continue }
            out.append(Due(find: find, ticker: ticker, tier: tier, pct: pct))
        }
        return out
    }
}
