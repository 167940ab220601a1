import Contracts

/// Rarity tier (docs/COMPATIBILITY.md#rarity): the contract's wire enum (`common | uncommon | rare | legendary`).
public typealias Rarity = DexRarity

/// The rarity classifier (docs/COMPATIBILITY.md#rarity) shared by identify, finds and the dex.
///
/// Effective ticker = trimmed, uppercased `ticker`, else `comparable`. Not in the seed's ticker set →
/// `legendary`; else `isPublic == false` → `rare`; else (`true` or unknown) → `common`. `uncommon` is reserved
/// and never produced (no market-cap data).
public enum RarityClassifier {
    /// The effective ticker of a find: trimmed, uppercased `ticker` if non-empty, else `comparable`, else `nil`.
    public static func effectiveTicker(ticker: String?, comparable: String?) -> String? {
        for value in [ticker, comparable] {
            if let value {
                let upper = TextForms.trimmed(value).uppercased()
                if !upper.isEmpty { return upper }
            }
        }
        return nil
    }

    /// The rarity of a find-shaped record (for an investable: `brand.ticker.symbol`, `comparables[0].ticker`,
    /// `brand.isPublic`).
    public static func classify(
        ticker: String?, comparable: String?, isPublic: Bool?, seed: BrandSeed = .shared
    ) -> DexRarity {
        guard let effective = effectiveTicker(ticker: ticker, comparable: comparable),
            seed.tickers.contains(effective)
        else { return .legendary }
        return isPublic == false ? .rare : .common
    }

    /// Rarity from the raw wire string (`nil` for anything else) — for rows stored as text.
    public static func rarity(fromWire value: String) -> DexRarity? {
        DexRarity(rawValue: value)
    }
}
