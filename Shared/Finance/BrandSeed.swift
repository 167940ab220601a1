#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One curated fact: the public listing behind a brand key (`brands.json`-shaped).
public struct SeedEntry: Sendable, Hashable, Codable {
    /// Ticker symbol as traded on `exchange` (e.g. `MCD`, `BRK.B`, `NSRGY`).
    public let ticker: String
    /// Listing venue: `NYSE`, `NASDAQ`, `OTC` (US over-the-counter ADR/ordinary), or a home exchange (`LSE`…).
    public let exchange: String
    /// The listed parent company's name.
    public let parent: String
    /// One of the 11 canonical GICS sector names (see `SectorAliases.canonicalSectors`).
    public let sector: String
    /// Always `true` in the curated seed: private brands are simply absent.
    public let isPublic: Bool

    public init(ticker: String, exchange: String, parent: String, sector: String, isPublic: Bool = true) {
        self.ticker = ticker
        self.exchange = exchange
        self.parent = parent
        self.sector = sector
        self.isPublic = isPublic
    }
}

/// The project's curated brand seed (normalized brand key → listing), decoded once from `BrandSeedData`.
///
/// `shared` is initialised lazily and thread-safely (Swift global/static `let` semantics) on first use.
public struct BrandSeed: Sendable {
    /// The seed the services use: the embedded curated data.
    public static let shared: BrandSeed = {
        do {
            return try BrandSeed(json: BrandSeedData.json)
        } catch {
            // The embedded text is covered by tests; an empty seed keeps a broken build serving (all private).
            return BrandSeed(entries: [:], loadError: "\(error)")
        }
    }()

    /// Normalized brand key → entry. Aliases (e.g. `mcdonald's`, `mcdonalds`) are separate keys.
    public let entries: [String: SeedEntry]
    /// Distinct tickers across all entries (the rarity classifier's `inSeed` set).
    public let tickers: Set<String>
    /// Canonical GICS sector (or `Unknown`) → distinct tickers in it; the dex's per-sector totals.
    public let sectorTickers: [String: Set<String>]
    /// Why decoding the embedded seed failed, if it did (then `entries` is empty).
    public let loadError: String?

    private let entryByTicker: [String: SeedEntry]

    /// A seed from entries; keys are normalized here, so callers may pass display spellings.
    public init(entries: [String: SeedEntry]) {
        self.init(entries: entries, loadError: nil)
    }

    /// Decodes a `brands.json`-shaped object: `{ "<brand key>": {ticker, exchange, parent, sector, isPublic} }`.
    public init(json: String) throws {
        let decoded = try JSONDecoder().decode([String: SeedEntry].self, from: Data(json.utf8))
        self.init(entries: decoded, loadError: nil)
    }

    private init(entries raw: [String: SeedEntry], loadError: String?) {
        var entries: [String: SeedEntry] = [:]
        entries.reserveCapacity(raw.count)
        // Deterministic when two spellings normalize to one key: the lexicographically first original wins.
        for key in raw.keys.sorted() {
            guard let entry = raw[key] else { continue }
            let normalized = BrandSeed.normalize(key)
            if normalized.isEmpty || entries[normalized] != nil { continue }
            entries[normalized] = entry
        }
        var tickers = Set<String>()
        var sectorTickers: [String: Set<String>] = [:]
        var byTicker: [String: SeedEntry] = [:]
        for key in entries.keys.sorted() {
            guard let entry = entries[key] else { continue }
            tickers.insert(entry.ticker)
            let sector = SectorAliases.canonical(entry.sector) ?? SectorAliases.unknown
            sectorTickers[sector, default: []].insert(entry.ticker)
            if byTicker[entry.ticker] == nil { byTicker[entry.ticker] = entry }
        }
        self.entries = entries
        self.tickers = tickers
        self.sectorTickers = sectorTickers
        self.entryByTicker = byTicker
        self.loadError = loadError
    }

    /// The entry for a brand text whose normalized form is exactly a seed key.
    public func entry(forKey key: String) -> SeedEntry? {
        entries[BrandSeed.normalize(key)]
    }

    /// An entry listed under `ticker` (case-insensitive; the first by key order when several brands share it).
    public func entry(forTicker ticker: String) -> SeedEntry? {
        entryByTicker[TextForms.trimmed(ticker).uppercased()]
    }

    /// Whether the ticker (trimmed, uppercased) is one of the seed's distinct tickers.
    public func contains(ticker: String) -> Bool {
        tickers.contains(TextForms.trimmed(ticker).uppercased())
    }

    /// Canonical sector names present in the seed, sorted by name (`Unknown` included only if some entry needs it).
    public var sectors: [String] { sectorTickers.keys.sorted() }

    /// `normalizeBrand` (docs/COMPATIBILITY.md#search-intent): trim, lowercase, curly apostrophes (‘ ’ ʼ) → `'`, runs
    /// of whitespace → one space.
    public static func normalize(_ s: String) -> String {
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return normalizeASCII(s) }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var pendingSpace = false
        for ch in s.lowercased() {
            if ch.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            switch ch {
            case "\u{2018}", "\u{2019}", "\u{02BC}": out.append("'")
            default: out.append(ch)
            }
        }
        return out
    }

    /// `normalize` for ASCII text (nearly every brand and hint), byte by byte: no Unicode case mapping or grapheme
    /// breaking, which made the general path cost tens of thousands of instructions per call.
    private static func normalizeASCII(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var pendingSpace = false
        for byte in s.utf8 {
            if byte == 0x20 || (0x09...0x0D).contains(byte) {  // Character.isWhitespace within ASCII
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            out.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
