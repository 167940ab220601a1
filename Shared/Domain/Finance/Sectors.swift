/// GICS sector names and the aliases people, vision models and place types use for them.
public enum SectorAliases {
    /// The 11 canonical GICS sector names, sorted.
    public static let canonicalSectors: [String] = [
        "Communication Services", "Consumer Discretionary", "Consumer Staples", "Energy", "Financials",
        "Health Care", "Industrials", "Information Technology", "Materials", "Real Estate", "Utilities",
    ]

    /// The dex bucket for a sector that has no canonical name.
    public static let unknown = "Unknown"

    /// The canonical GICS sector for a sector name or alias (`"restaurants"`, `"tech"`, `"consumer cyclical"`,
    /// `"Health-Care sector"`), case-, punctuation- and `&`/`and`-insensitive. A longer description resolves by the
    /// longest alias it contains as whole words (`"fast food chain"` → Consumer Discretionary). `nil` when no
    /// sector (or an ambiguous one) is named.
    public static func canonical(_ s: String) -> String? {
        let key = aliasKey(s)
        guard !key.isEmpty else { return nil }
        if let hit = aliases[key] { return hit }
        if key.hasSuffix(" sector"), let hit = aliases[String(key.dropLast(" sector".count))] { return hit }
        if key.hasSuffix(" sectors"), let hit = aliases[String(key.dropLast(" sectors".count))] { return hit }
        // A longer description ("fast food restaurant chain", "oil and gas company"): the longest alias it
        // contains as whole words decides; equally long aliases naming different sectors ("power tools") → nil.
        let padded = " " + key + " "
        var best: (length: Int, sector: String?) = (0, nil)
        for (alias, sector) in aliases where alias.count >= best.length && padded.contains(" " + alias + " ") {
            if alias.count > best.length {
                best = (alias.count, sector)
            } else if best.sector != sector {
                best.sector = nil
            }
        }
        return best.sector
    }

    /// Lowercased, `&` → `and`, other punctuation → space, whitespace collapsed.
    static func aliasKey(_ s: String) -> String {
        var out = ""
        var pendingSpace = false
        for ch in BrandSeed.normalize(s) {
            let piece: String
            if ch == "&" {
                piece = "and"
                pendingSpace = !out.isEmpty
            } else if ch == "'" {
                continue
            } else if ch.isLetter || ch.isNumber {
                piece = String(ch)
            } else {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            out.append(piece)
            if ch == "&" { pendingSpace = true }
        }
        return out
    }

    private static let aliases: [String: String] = {
        let table: [String: [String]] = [
            "Communication Services": [
                "communication services", "communication", "communications", "communication service",
                "telecommunication services", "telecommunications", "telecom", "telecoms", "telco", "wireless",
                "media", "entertainment", "media and entertainment", "streaming", "social media", "internet",
                "interactive media", "video games", "gaming", "publishing", "broadcasting", "movies", "cinema",
                "movie theater", "movie theaters", "movie theatre", "advertising",
            ],
            "Consumer Discretionary": [
                "consumer discretionary", "discretionary", "consumer cyclical", "consumer cyclicals", "cyclical",
                "restaurant", "restaurants", "fast food", "quick service restaurant", "quick service restaurants",
                "qsr", "dining", "food service", "cafe", "cafes", "coffee shop", "coffee shops", "retail",
                "retailer", "retailers", "specialty retail", "department store", "department stores",
                "apparel", "clothing", "fashion", "footwear", "shoes", "sportswear", "athletic apparel", "luxury",
                "luxury goods", "jewelry", "accessories", "autos", "auto", "automotive", "automobiles",
                "automakers", "car", "cars", "auto parts", "car dealership", "hotels", "hotel", "lodging",
                "hospitality", "travel", "leisure", "hotels restaurants and leisure", "casinos", "casino",
                "cruise", "cruise lines", "e commerce", "ecommerce", "online retail", "home improvement",
                "home furnishings", "furniture", "household durables", "consumer electronics", "toys",
                "leisure products", "fitness", "gym", "gyms", "theme parks", "education services",
                "consumer services",
            ],
            "Consumer Staples": [
                "consumer staples", "staples", "consumer defensive", "consumer non cyclical", "food", "foods",
                "packaged food", "packaged foods", "food products", "beverage", "beverages", "drinks",
                "soft drinks", "food and beverage", "food and beverages", "food and drink", "beer", "brewers",
                "spirits", "wine", "alcohol", "grocery", "groceries",
                "supermarket", "supermarkets", "grocery store", "grocery stores", "food retail",
                "household products", "personal care", "personal products", "beauty", "cosmetics", "skincare",
                "tobacco", "snacks", "convenience store", "convenience stores", "warehouse club",
                "discount store", "dollar store", "consumer goods",
            ],
            "Energy": [
                "energy", "oil", "oil and gas", "gas", "petroleum", "gas station", "gas stations",
                "fuel", "fuels", "refining", "integrated oil",
            ],
            "Financials": [
                "financials", "financial", "financial services", "finance", "bank", "banks", "banking",
                "insurance", "insurer", "payments", "payment", "fintech", "credit cards", "brokerage",
                "asset management", "capital markets", "lending", "diversified financials",
            ],
            "Health Care": [
                "health care", "healthcare", "health", "pharma", "pharmaceutical", "pharmaceuticals",
                "biotech", "biotechnology", "medical", "medical devices", "hospitals", "hospital", "pharmacy",
                "pharmacies", "drugstore", "drugstores", "health insurance", "managed care", "life sciences",
                "optical", "eyewear",
            ],
            "Industrials": [
                "industrials", "industrial", "airlines", "airline", "aviation", "aerospace", "defense",
                "aerospace and defense", "transportation", "transport", "logistics", "shipping", "delivery",
                "trucking", "railroads", "rail", "machinery", "construction", "building products",
                "car rental", "rideshare", "ride sharing", "ride hailing", "commercial services", "waste",
                "tools", "electrical equipment",
            ],
            "Information Technology": [
                "information technology", "technology", "tech", "it", "software", "hardware", "semiconductors",
                "semiconductor", "chips", "electronics", "computers", "computer", "cloud", "saas",
                "technology hardware", "it services", "smartphones",
            ],
            "Materials": [
                "materials", "basic materials", "chemicals", "chemical", "mining", "metals", "metals and mining",
                "steel", "paint", "paints", "coatings", "packaging", "containers and packaging", "paper",
                "construction materials", "fertilizers",
            ],
            "Real Estate": [
                "real estate", "realestate", "reit", "reits", "property", "properties", "real estate investment trusts",
                "housing", "self storage", "malls", "shopping centers", "homebuilding",
            ],
            "Utilities": [
                "utilities", "utility", "electric", "electricity", "electric utilities", "power", "water",
                "water utilities", "natural gas utilities", "renewable energy", "power utilities",
            ],
        ]
        var map: [String: String] = [:]
        for (canonical, names) in table {
            map[aliasKey(canonical)] = canonical
            for name in names { map[aliasKey(name)] = canonical }
        }
        return map
    }()
}

/// An exchange-traded fund: symbol and display name.
public struct SectorETF: Sendable, Hashable, Codable {
    public let ticker: String
    public let name: String

    public init(ticker: String, name: String) {
        self.ticker = ticker
        self.name = name
    }
}

/// The fixed sector → top-3 ETF map used when `resolveEtfExposure` finds nothing
/// (docs/COMPATIBILITY.md#resolve-comparable), plus the known-ETF allow-list that lets an uncited symbol through.
public enum SectorETFs {
    /// Per canonical GICS sector: SPDR, Vanguard, then iShares (Fidelity where iShares has no plain sector fund).
    public static let bySector: [String: [SectorETF]] = [
        "Communication Services": [
            SectorETF(ticker: "XLC", name: "Communication Services Select Sector SPDR Fund"),
            SectorETF(ticker: "VOX", name: "Vanguard Communication Services ETF"),
            SectorETF(ticker: "FCOM", name: "Fidelity MSCI Communication Services Index ETF"),
        ],
        "Consumer Discretionary": [
            SectorETF(ticker: "XLY", name: "Consumer Discretionary Select Sector SPDR Fund"),
            SectorETF(ticker: "VCR", name: "Vanguard Consumer Discretionary ETF"),
            SectorETF(ticker: "FDIS", name: "Fidelity MSCI Consumer Discretionary Index ETF"),
        ],
        "Consumer Staples": [
            SectorETF(ticker: "XLP", name: "Consumer Staples Select Sector SPDR Fund"),
            SectorETF(ticker: "VDC", name: "Vanguard Consumer Staples ETF"),
            SectorETF(ticker: "IYK", name: "iShares U.S. Consumer Staples ETF"),
        ],
        "Energy": [
            SectorETF(ticker: "XLE", name: "Energy Select Sector SPDR Fund"),
            SectorETF(ticker: "VDE", name: "Vanguard Energy ETF"),
            SectorETF(ticker: "IYE", name: "iShares U.S. Energy ETF"),
        ],
        "Financials": [
            SectorETF(ticker: "XLF", name: "Financial Select Sector SPDR Fund"),
            SectorETF(ticker: "VFH", name: "Vanguard Financials ETF"),
            SectorETF(ticker: "IYF", name: "iShares U.S. Financials ETF"),
        ],
        "Health Care": [
            SectorETF(ticker: "XLV", name: "Health Care Select Sector SPDR Fund"),
            SectorETF(ticker: "VHT", name: "Vanguard Health Care ETF"),
            SectorETF(ticker: "IYH", name: "iShares U.S. Healthcare ETF"),
        ],
        "Industrials": [
            SectorETF(ticker: "XLI", name: "Industrial Select Sector SPDR Fund"),
            SectorETF(ticker: "VIS", name: "Vanguard Industrials ETF"),
            SectorETF(ticker: "IYJ", name: "iShares U.S. Industrials ETF"),
        ],
        "Information Technology": [
            SectorETF(ticker: "XLK", name: "Technology Select Sector SPDR Fund"),
            SectorETF(ticker: "VGT", name: "Vanguard Information Technology ETF"),
            SectorETF(ticker: "IYW", name: "iShares U.S. Technology ETF"),
        ],
        "Materials": [
            SectorETF(ticker: "XLB", name: "Materials Select Sector SPDR Fund"),
            SectorETF(ticker: "VAW", name: "Vanguard Materials ETF"),
            SectorETF(ticker: "IYM", name: "iShares U.S. Basic Materials ETF"),
        ],
        "Real Estate": [
            SectorETF(ticker: "XLRE", name: "Real Estate Select Sector SPDR Fund"),
            SectorETF(ticker: "VNQ", name: "Vanguard Real Estate ETF"),
            SectorETF(ticker: "IYR", name: "iShares U.S. Real Estate ETF"),
        ],
        "Utilities": [
            SectorETF(ticker: "XLU", name: "Utilities Select Sector SPDR Fund"),
            SectorETF(ticker: "VPU", name: "Vanguard Utilities ETF"),
            SectorETF(ticker: "IDU", name: "iShares U.S. Utilities ETF"),
        ],
    ]

    /// The top-3 sector ETFs for a canonical sector or alias; `[]` when it is not a sector.
    public static func top3(forSector sector: String) -> [SectorETF] {
        guard let canonical = SectorAliases.canonical(sector) else { return [] }
        return bySector[canonical] ?? []
    }

    /// The fallback (docs/COMPATIBILITY.md#resolve-comparable) for `resolveEtfExposure(sector ?? brand)`: the seed
    /// sector of the brand the query names (seed direct → substring → parent), else the query read as a sector name
    /// (alias-aware), then that sector's top-3 ETFs. `[]` when neither gives a sector.
    public static func fallback(sectorOrQuery query: String, matcher: BrandMatcher = .shared) -> [SectorETF] {
        guard !TextForms.trimmed(query).isEmpty else { return [] }
        if let hit = matcher.match(query), let canonical = SectorAliases.canonical(hit.entry.sector),
            let etfs = bySector[canonical]
        {
            return etfs
        }
        return top3(forSector: query)
    }

    /// The known-ETF allow-list (docs/COMPATIBILITY.md#resolve-comparable): a symbol here is accepted from evidence
    /// even when not strictly cited.
    public static let contractAllowList: Set<String> = [
        "XLP", "VDC", "IYK", "XLY", "VCR", "XLF", "XLE", "XLI", "XLB", "XLK", "VGT", "IYW", "XLV", "XLU",
        "XLRE", "XLC", "SPY", "VOO", "QQQ", "IWM", "DIA", "ARKK", "IBB", "KWEB", "EEM", "VTI", "ITB", "XRT",
        "PEJ", "JETS",
    ]

    /// Display names for every known ETF (the allow-list and the sector map).
    public static let names: [String: String] = {
        var names: [String: String] = [
            "SPY": "SPDR S&P 500 ETF Trust", "VOO": "Vanguard S&P 500 ETF", "QQQ": "Invesco QQQ Trust",
            "IWM": "iShares Russell 2000 ETF", "DIA": "SPDR Dow Jones Industrial Average ETF Trust",
            "ARKK": "ARK Innovation ETF", "IBB": "iShares Biotechnology ETF",
            "KWEB": "KraneShares CSI China Internet ETF", "EEM": "iShares MSCI Emerging Markets ETF",
            "VTI": "Vanguard Total Stock Market ETF", "ITB": "iShares U.S. Home Construction ETF",
            "XRT": "SPDR S&P Retail ETF", "PEJ": "Invesco Leisure and Entertainment ETF",
            "JETS": "U.S. Global Jets ETF",
        ]
        for etfs in bySector.values {
            for etf in etfs { names[etf.ticker] = etf.name }
        }
        return names
    }()

    /// The allow-list widened by the sector-map funds (all well-known, liquid sector ETFs).
    public static let knownETFs: Set<String> = contractAllowList.union(bySector.values.flatMap { $0.map(\.ticker) })

    /// Whether `symbol` (trimmed, uppercased) is a known ETF.
    public static func isKnownETF(_ symbol: String) -> Bool {
        knownETFs.contains(TextForms.trimmed(symbol).uppercased())
    }
}
