import Contracts

/// Sector counts for `/v1/dex` (docs/COMPATIBILITY.md#dex) (rows are the contract's `DexSector`).
public enum DexSectors {
    /// Every seed sector (canonical name via the alias map, else `Unknown`), sorted by name, with the number of
    /// distinct seed tickers in it (aliased brand keys count once) and how many distinct `effectiveTickers`
    /// (trimmed, uppercased; tickers outside the seed are ignored) fall in it.
    public static func compute(effectiveTickers: some Sequence<String>, seed: BrandSeed = .shared) -> [DexSector] {
        var caught = Set<String>()
        for ticker in effectiveTickers {
            let upper = TextForms.trimmed(ticker).uppercased()
            if !upper.isEmpty { caught.insert(upper) }
        }
        return seed.sectorTickers.keys.sorted().map { sector in
            let tickers = seed.sectorTickers[sector] ?? []
            return DexSector(sector: sector, found: tickers.intersection(caught).count, total: tickers.count)
        }
    }

    /// Sectors complete in `counts` (`found ≥ total`, `total > 0`): the ones that earn the `sector:<name>` badge.
    public static func completed(_ counts: [DexSector]) -> [String] {
        counts.filter { $0.total > 0 && $0.found >= $0.total }.map(\.sector)
    }
}
