import Foundation

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

/// The project's curated brand seed (normalized brand key → listing), decoded once from the `brand-seed.json`
/// resource of this module (`Shared/Domain/Finance/Resources`).
///
/// The data: written by hand from public knowledge (listings and ownership as of early 2026). Keys are
/// `BrandSeed.normalize`d; a brand's spelling variants are separate keys (aliases) that point at the same listing.
/// Foreign companies use their US-tradable listing or ADR when one exists (`OTC` for unsponsored/OTC ADRs), else the
/// home listing (`TSX`, `LSE`). `sector` is one of the 11 GICS sectors of the listed company. Brands of private
/// companies are deliberately absent: not in the seed means "not known to be public" to the offline matcher. Edit the
/// JSON directly, one key per line; `BrandSeedTests` check shape, sectors and per-ticker consistency.
///
/// Corporate actions applied (the original project's seed predates them; `ReferenceCoverageTests` lists the same):
/// - Discover Financial (DFS) → Capital One (COF), May 2025; Redfin (RDFN) → Rocket Companies (RKT), Jul 2025;
///   Paramount Global (PARA) → Paramount Skydance (PSKY), Aug 2025; Foot Locker (FL) → Dick's Sporting Goods (DKS),
///   Sep 2025; Mesa Air Group (MESA) merged with Republic Airways and now trades as Republic Airways Holdings (RJET),
///   Nov 2025; Stuart Weitzman → Caleres (CAL), 2025; Versace → Prada (PRDSY), Dec 2025; Comerica (CMA) → Fifth Third
///   (FITB), Feb 2026.
/// - Taken private or gone, so their brands are absent: Nordstrom (May 2025, the Nordstrom family and Liverpool),
///   Walgreens (Aug 2025, Sycamore Partners), Skechers (Sep 2025, 3G Capital), WK Kellogg (Sep 2025, Ferrero),
///   Kellanova (Dec 2025, Mars), Denny's (Jan 2026, TriArtisan and partners), Big Lots (Chapter 11 in 2024, stores
///   sold to private buyers), Spirit Airlines (old shares cancelled in its 2025 reorganisation), Ayr Wellness (core
///   operations sold to its senior noteholders in a 2025 foreclosure; the parent is being wound down).
/// - Renamed, same ticker: Boston Properties → BXP Inc; BNY Mellon → BNY; AstraZeneca's US line moved from Nasdaq
///   ADRs to a direct NYSE listing (Feb 2026).
/// - Pending when written (still listed here; re-check): Union Pacific–Norfolk Southern, Skyworks–Qorvo, the
///   take-private of European Wax Center by General Atlantic.
/// - Reebok and Sperry belong to the private Authentic Brands Group, so they are absent; `ABG` is Asbury Automotive.
///   `VLVLY` is AB Volvo (trucks, buses, Volvo Penta); Volvo Cars is a separate company listed only in Stockholm.
///
/// `shared` is initialised lazily and thread-safely (Swift global/static `let` semantics) on first use.
public struct BrandSeed: Sendable {
    /// The seed the services use: the bundled curated data, read once.
    public static let shared: BrandSeed = {
        do {
            return try BrandSeed(data: Data(contentsOf: bundledSeed))
        } catch {
            // The bundled file is covered by tests; an empty seed keeps a broken install serving (all private).
            return BrandSeed(entries: [:], loadError: "\(error)")
        }
    }()

    /// The bundled file: SwiftPM copies this module's resources into `Mapvest_Finance.resources` beside the
    /// executable (the deploy image ships that folder with the binaries). Looked up by hand rather than through
    /// `Bundle.module`, which stops the process when the folder is missing and exists only in SwiftPM builds.
    static var bundledSeed: URL {
        Bundle.main.bundleURL.appendingPathComponent("Mapvest_Finance.resources/brand-seed.json")
    }

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
    public init(data: Data) throws {
        let decoded = try JSONDecoder().decode([String: SeedEntry].self, from: data)
        self.init(entries: decoded, loadError: nil)
    }

    /// Decodes the same shape from text (small seeds written inline).
    public init(json: String) throws {
        try self.init(data: Data(json.utf8))
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
