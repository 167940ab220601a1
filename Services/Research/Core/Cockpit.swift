import Contracts

/// `POST /v1/cockpit`: Underlying's batch rank of the caller's saved tickers (1–10, already normalized).
public struct CockpitCommand: Codable, Sendable, Equatable {
    public static let name = "research.cockpit.rank.v1"
    public var tickers: [String]

    public init(tickers: [String]) { self.tickers = tickers }
}

/// One ranked row as the client reads it; absent values are left out of the JSON.
public struct CockpitRow: Codable, Sendable, Equatable {
    public var rank: Double
    public var ticker: String
    public var score: Double?
    public var lane: String?
    public var ridge: JSONValue?
    public var flow: JSONValue?
    public var auction: JSONValue?

    public init(
        rank: Double, ticker: String, score: Double?, lane: String?, ridge: JSONValue?, flow: JSONValue?,
        auction: JSONValue?
    ) {
        self.rank = rank
        self.ticker = ticker
        self.score = score
        self.lane = lane
        self.ridge = ridge
        self.flow = flow
        self.auction = auction
    }
}

/// The `200` body: the rows, the tickers asked for, Underlying's `meta` when it is an object, and its origin.
public struct CockpitResponse: Codable, Sendable, Equatable {
    public var rows: [CockpitRow]
    public var tickers: [String]
    public var meta: [String: JSONValue]?
    public var sourceUrl: String
}

/// The cockpit's rules, as the original applies them (docs/COMPATIBILITY.md#cockpit).
public enum CockpitRules {
    public static let maxTickers = 10
    public static let tickersRequired = "tickers required (1–10 symbols)"

    /// The body's `tickers`: strings trimmed and upper-cased, valid ones (`^[A-Z][A-Z0-9.]{0,5}$`) kept in order
    /// without repeats, the first 10; other elements are skipped. Nil when none is left or `tickers` is no array.
    public static func tickers(_ body: JSONValue?) -> [String]? {
        guard case .object(let object)? = body, case .array(let raw)? = object["tickers"] else { return nil }
        var out: [String] = []
        for case .string(let text) in raw {
            guard let ticker = ValueChain.ticker(text), !out.contains(ticker) else { continue }
            out.append(ticker)
            if out.count == maxTickers { break }
        }
        return out.isEmpty ? nil : out
    }

    /// Underlying's answer read into the `200` body: rows from the array root or the first array under `rows`,
    /// `cockpit`, `results`, `items`, `data`; `origin` is Underlying's base URL without a trailing slash.
    public static func response(_ answer: JSONValue, tickers: [String], origin: String) -> CockpitResponse {
        var meta: [String: JSONValue]?
        if case .object(let object) = answer, case .object(let m)? = object["meta"] { meta = m }
        return CockpitResponse(
            rows: rowObjects(answer).enumerated().map { row($0.element, index: $0.offset) }, tickers: tickers,
            meta: meta, sourceUrl: origin + "/")
    }

    private static func rowObjects(_ answer: JSONValue) -> [JSONValue] {
        switch answer {
        case .array(let rows): return rows
        case .object(let object):
            for key in ["rows", "cockpit", "results", "items", "data"] {
                if case .array(let rows)? = object[key] { return rows }
            }
            return []
        default: return []
        }
    }

    /// One upstream row: `rank` (given, else position + 1), `ticker` (`ticker` or `symbol`, upper-cased), `score`
    /// (`score` or `total`), `lane` (`lane` or `regime`), and the three cells.
    static func row(_ value: JSONValue, index: Int) -> CockpitRow {
        let r: [String: JSONValue] = if case .object(let o) = value { o } else { [:] }
        return CockpitRow(
            rank: number(r["rank"]) ?? Double(index + 1),
            ticker: (scalarText(first(r, "ticker", "symbol")) ?? "").uppercased(),
            score: number(r["score"]) ?? number(r["total"]),
            lane: text(r["lane"]) ?? text(r["regime"]),
            ridge: cell(first(r, "ridge", "ridge_growth", "ridgeScore")),
            flow: cell(first(r, "flow", "flow_compass", "flowScore")),
            auction: cell(first(r, "auction", "auctionScore", "poc")))
    }

    /// The first of `keys` that is present and not null.
    private static func first(_ r: [String: JSONValue], _ keys: String...) -> JSONValue? {
        for key in keys {
            if let value = r[key], value != .null { return value }
        }
        return nil
    }

    /// A string or number as it is; an object collapses to its first string or number among `recommendation`,
    /// `state`, `location`, `signal`, `score`, `setup`; anything else is absent.
    static func cell(_ value: JSONValue?) -> JSONValue? {
        switch value {
        case .string?, .number?: return value
        case .object(let o)?:
            for key in ["recommendation", "state", "location", "signal", "score", "setup"] {
                switch o[key] {
                case .string?, .number?: return o[key]
                default: continue
                }
            }
            return nil
        default: return nil
        }
    }

    private static func number(_ value: JSONValue?) -> Double? {
        if case .number(let n)? = value { n } else { nil }
    }

    private static func text(_ value: JSONValue?) -> String? {
        if case .string(let s)? = value { s } else { nil }
    }

    /// A value as JavaScript's `String(…)` spells a string, number or boolean (the original's `ticker ?? symbol`).
    private static func scalarText(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?: s
        case .number(let n)?: n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let b)?: b ? "true" : "false"
        default: nil
        }
    }
}
