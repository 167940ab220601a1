#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The latest ratio row for a ticker; each ratio nil when the provider has none.
public struct FinancialRatios: Sendable, Equatable, Codable {
    public var priceToEarnings: Double?
    public var priceToSales: Double?
    public var priceToBook: Double?
    public var evToEBITDA: Double?
    /// Return on equity as a fraction (0.25 = 25 %).
    public var returnOnEquity: Double?
    public var debtToEquity: Double?
    /// Dividend yield as a fraction.
    public var dividendYield: Double?
    /// The row's date (`YYYY-MM-DD`) when given.
    public var date: String?

    public init(
        priceToEarnings: Double? = nil, priceToSales: Double? = nil, priceToBook: Double? = nil,
        evToEBITDA: Double? = nil, returnOnEquity: Double? = nil, debtToEquity: Double? = nil,
        dividendYield: Double? = nil, date: String? = nil
    ) {
        self.priceToEarnings = priceToEarnings
        self.priceToSales = priceToSales
        self.priceToBook = priceToBook
        self.evToEBITDA = evToEBITDA
        self.returnOnEquity = returnOnEquity
        self.debtToEquity = debtToEquity
        self.dividendYield = dividendYield
        self.date = date
    }

    /// True when no ratio is known.
    public var isEmpty: Bool {
        [priceToEarnings, priceToSales, priceToBook, evToEBITDA, returnOnEquity, debtToEquity, dividendYield]
            .allSatisfy { $0 == nil }
    }
}

/// Massive's ratios endpoint (`/stocks/financials/v1/ratios?ticker=<SYM>`): the first (latest) row of `results`.
/// Field names follow Massive (`price_to_earnings`, `price_to_sales`, `price_to_book`, `ev_to_ebitda` or
/// `enterprise_value_to_ebitda`, `return_on_equity`, `debt_to_equity`, `dividend_yield`); non-finite numbers are
/// absent. Nil when the body is not a ratios response or has no usable ratio.
enum MassiveRatios {
    static func ratios(from body: [UInt8]) -> FinancialRatios? {
        struct Row: Decodable {
            var values: [String: Double] = [:]
            var date: String?
            private struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init?(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Key.self)
                for key in c.allKeys {
                    if let number = try? c.decode(Double.self, forKey: key), number.isFinite {
                        values[key.stringValue] = number
                    } else if key.stringValue == "date" {
                        date = try? c.decode(String.self, forKey: key)
                    }
                }
            }
        }
        guard let envelope = try? JSONDecoder().decode(MassiveEnvelope<Row>.self, from: Data(body)),
            envelope.status?.uppercased() != "ERROR", let row = envelope.results?.first
        else { return nil }
        let v = row.values
        let ratios = FinancialRatios(
            priceToEarnings: v["price_to_earnings"], priceToSales: v["price_to_sales"], priceToBook: v["price_to_book"],
            evToEBITDA: v["ev_to_ebitda"] ?? v["enterprise_value_to_ebitda"], returnOnEquity: v["return_on_equity"],
            debtToEquity: v["debt_to_equity"], dividendYield: v["dividend_yield"], date: row.date)
        return ratios.isEmpty ? nil : ratios
    }
}
