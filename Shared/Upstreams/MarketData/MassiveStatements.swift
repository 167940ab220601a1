import Contracts
import Runtime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One financial-statement period from Massive: its end date and the line items a caller asked for (absent items
/// stay absent, never zero).
public struct StatementPeriod: Sendable, Equatable {
    /// `YYYY-MM-DD`.
    public var fiscalDate: String
    /// Revenue (income statements).
    public var revenue: Double?
    /// Capital expenditure as a positive magnitude (cash-flow statements).
    public var capex: Double?

    public init(fiscalDate: String, revenue: Double? = nil, capex: Double? = nil) {
        self.fiscalDate = fiscalDate
        self.revenue = revenue
        self.capex = capex
    }
}

/// A page of statements and the exact URL that answered them (the API key travels in a header, never the URL).
public struct StatementPage: Sendable, Equatable {
    public var periods: [StatementPeriod]
    public var url: String
}

/// Massive's statement families (`/stocks/financials/v1/income-statements` and `…/cash-flow-statements`).
public enum StatementFamily: String, Sendable {
    case income = "income-statements"
    case cashFlow = "cash-flow-statements"
}

extension MarketDataClient {
    /// Up to `limit` (1…100) statements of `family` for `symbol`, newest period first; nil when the symbol is
    /// invalid, Massive has no key, or the request failed. An empty page is an answer.
    public func statements(_ family: StatementFamily, _ symbol: String, limit: Int) async -> StatementPage? {
        guard let sym = MarketSymbol.normalize(symbol), configuration.massiveAPIKey != nil else { return nil }
        var base = configuration.massiveBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        let url =
            "\(base)/stocks/financials/v1/\(family.rawValue)?ticker=\(MarketSymbol.percentEncoded(sym))"
            + "&limit=\(min(max(limit, 1), 100))&sort=period_end_date.desc"
        guard let body = await get(provider: .massive, kind: family.rawValue, url: url) else { return nil }
        guard let periods = MassiveStatements.periods(from: body, family: family) else { return nil }
        return StatementPage(periods: periods, url: url)
    }
}

/// Reads Massive statement rows: the period end under `period_end_date|end_date|fiscal_date|period_of_report_date|
/// date`; revenue under `revenues|revenue|total_revenue|total_revenues`; capex under `capital_expenditures|
/// capital_expenditure|capex|purchase_of_property_plant_and_equipment|payments_to_acquire_property_plant_and_equipment`
/// (its magnitude). A number may come bare or wrapped as `{"value": n}`. Rows without a date are skipped; nil when
/// the body is not a statements envelope or says `status: ERROR`.
enum MassiveStatements {
    static let dateKeys = ["period_end_date", "end_date", "fiscal_date", "period_of_report_date", "date"]
    static let revenueKeys = ["revenues", "revenue", "total_revenue", "total_revenues"]
    static let capexKeys = [
        "capital_expenditures", "capital_expenditure", "capex", "purchase_of_property_plant_and_equipment",
        "payments_to_acquire_property_plant_and_equipment",
    ]

    static func periods(from body: [UInt8], family: StatementFamily) -> [StatementPeriod]? {
        guard let envelope = try? JSONDecoder().decode(MassiveEnvelope<Row>.self, from: Data(body)),
            envelope.status?.uppercased() != "ERROR", let rows = envelope.results
        else { return nil }
        return rows.compactMap { row in
            guard let date = dateKeys.lazy.compactMap({ row.strings[$0] }).first(where: { !$0.isEmpty }) else {
                return nil
            }
            let fiscal = String(date.prefix(10))
            switch family {
            case .income:
                return StatementPeriod(
                    fiscalDate: fiscal, revenue: revenueKeys.lazy.compactMap { row.numbers[$0] }.first)
            case .cashFlow:
                return StatementPeriod(
                    fiscalDate: fiscal, capex: capexKeys.lazy.compactMap { row.numbers[$0] }.first.map(abs))
            }
        }
    }

    /// A row's finite numbers (bare or `{"value": n}`) and strings by key.
    struct Row: Decodable {
        var numbers: [String: Double] = [:]
        var strings: [String: String] = [:]
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        private struct Wrapped: Decodable { var value: Double? }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            for key in c.allKeys {
                if let number = try? c.decode(Double.self, forKey: key) {
                    if number.isFinite { numbers[key.stringValue] = number }
                } else if let text = try? c.decode(String.self, forKey: key) {
                    strings[key.stringValue] = String(
                        text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
                } else if let wrapped = try? c.decode(Wrapped.self, forKey: key), let number = wrapped.value,
                    number.isFinite
                {
                    numbers[key.stringValue] = number
                }
            }
        }
    }
}

/// Massive's answer envelope: `status` (`ERROR` on failure) and `results`, an array of rows or a single row.
struct MassiveEnvelope<Row: Decodable>: Decodable {
    var status: String?
    var results: [Row]?
    private enum Keys: String, CodingKey { case status, results }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        status = try? c.decodeIfPresent(String.self, forKey: .status)
        if let many = try? c.decodeIfPresent([Row].self, forKey: .results) {
            results = many
        } else if let one = try? c.decodeIfPresent(Row.self, forKey: .results) {
            results = [one]
        }
    }
}
