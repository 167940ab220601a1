import Contracts

/// Massive's splits, dividends and TMX corporate events read into `MarketEvent`s, and their merge. Pure.
enum MassiveEvents {
    /// A split: date = `execution_date`, description `<split_from> for <split_to> split`.
    static func split(_ o: [String: JSONValue], ticker: String?) -> MarketEvent? {
        guard let date = MassivePages.string(o["execution_date"]),
            let symbol = MassivePages.string(o["ticker"]) ?? ticker
        else { return nil }
        let from = MassivePages.number(o["split_from"]).map(format)
        let to = MassivePages.number(o["split_to"]).map(format)
        return MarketEvent(
            id: MassivePages.string(o["id"]), ticker: symbol, type: "split", date: date,
            description: "\(from ?? "?") for \(to ?? "?") split", provider: "massive", raw: .object(o))
    }

    /// A dividend: date = `ex_dividend_date`, description `Cash dividend <cash_amount>` when the amount is a number.
    static func dividend(_ o: [String: JSONValue], ticker: String?) -> MarketEvent? {
        guard let date = MassivePages.string(o["ex_dividend_date"]),
            let symbol = MassivePages.string(o["ticker"]) ?? ticker
        else { return nil }
        return MarketEvent(
            id: MassivePages.string(o["id"]), ticker: symbol, type: "dividend", date: date,
            description: MassivePages.number(o["cash_amount"]).map { "Cash dividend \(format($0))" },
            provider: "massive", raw: .object(o))
    }

    /// A TMX partner event: `{ticker, type, date, status, name, url, company_name, isin, trading_venue, tmx_record_id}`.
    static func tmx(_ o: [String: JSONValue], ticker: String?) -> MarketEvent? {
        guard let date = MassivePages.string(o["date"]), let symbol = MassivePages.string(o["ticker"]) ?? ticker
        else { return nil }
        return MarketEvent(
            ticker: symbol, type: MassivePages.string(o["type"]) ?? "corporate_event", date: date,
            status: MassivePages.string(o["status"]), description: MassivePages.string(o["name"]),
            sourceUrl: MassivePages.string(o["url"]), provider: "tmx",
            companyName: MassivePages.string(o["company_name"]),
            isin: MassivePages.string(o["isin"]), tradingVenue: MassivePages.string(o["trading_venue"]),
            tmxRecordId: MassivePages.string(o["tmx_record_id"]))
    }

    /// Events dated inside [from, to] (each bound when given; `YYYY-MM-DD` compares as text), newest first (stable
    /// for equal dates), at most `limit`.
    static func merge(_ events: [MarketEvent], from: String?, to: String?, limit: Int) -> [MarketEvent] {
        let kept = events.filter { event in
            let day = String(event.date.prefix(10))
            return (from.map { day >= $0 } ?? true) && (to.map { day <= $0 } ?? true)
        }
        let sorted = kept.enumerated().sorted { a, b in
            a.element.date != b.element.date ? a.element.date > b.element.date : a.offset < b.offset
        }
        return Array(sorted.prefix(max(0, limit)).map(\.element))
    }

    /// A number as JavaScript prints it: integers without a fraction.
    static func format(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    }
}
