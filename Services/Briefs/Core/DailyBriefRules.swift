import Contracts
import Foundation
import Runtime

/// Mapvest Daily's pure parts (docs/COMPATIBILITY.md#daily-brief): the canned briefs, markdown stripping, the prompt's
/// quote lines and round-robin headline block, the pre-filter's verdict, when a brief pushes, and the `daily_brief`
/// push.
public enum DailyBriefRules {
    public static let emptyHeadline = "Nothing on your watchlist yet."
    public static let emptyBody = "Save a ticker from any detail page and your daily briefing will be written here."
    public static let outageHeadline = "Daily briefing offline."
    public static let outageBody =
        "Market commentary is unavailable right now. Your saved tickers and quotes are still on each detail page, and the column will be written again on your next visit."
    public static let headlinesPerTicker = 2
    public static let headlineTotal = 8
    /// At most this many tickers go into the prompt.
    public static let maxTickers = 40

    public static func empty(_ now: Date) -> DailyBrief {
        DailyBrief(headline: emptyHeadline, body: emptyBody, generatedAt: Timestamp.iso8601(now))
    }

    public static func outage(_ now: Date) -> DailyBrief {
        DailyBrief(headline: outageHeadline, body: outageBody, generatedAt: Timestamp.iso8601(now))
    }

    /// Models wrap text in `**bold**` even when asked not to: outer `**…**`/`__…__` and every remaining pair go.
    public static func strip(_ text: String) -> String {
        var s = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for mark in ["**", "__"] where s.hasPrefix(mark) && s.hasSuffix(mark) && s.count > 2 * mark.count {
            s = String(s.dropFirst(mark.count).dropLast(mark.count))
        }
        return s.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "__", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `$SYM (name) $price ±x.xx%`; a ticker without a usable quote is named alone.
    public static func quoteLine(_ entry: WatchEntry, _ quote: Quote?) -> String {
        var parts = ["$\(entry.ticker)"]
        if let name = entry.name { parts.append("(\(name))") }
        if let quote, quote.price.isFinite, quote.changePct.isFinite {
            parts.append("$" + String(format: "%.2f", quote.price))
            parts.append((quote.changePct >= 0 ? "+" : "") + String(format: "%.2f", quote.changePct) + "%")
        }
        return parts.joined(separator: " ")
    }

    /// One headline of the prompt's block.
    public static func headlineLine(ticker: String, title: String, source: String) -> String {
        "- $\(ticker): \(title) [\(source)]"
    }

    /// Two headlines per ticker, at most eight in all, taken round-robin so every ticker gets one before any gets two.
    public static func roundRobin<Item>(_ tickers: [String], _ perTicker: [[Item]]) -> [(ticker: String, item: Item)] {
        var rows: [(ticker: String, item: Item)] = []
        for pass in 0..<headlinesPerTicker {
            for (ticker, items) in zip(tickers, perTicker) where pass < items.count && rows.count < headlineTotal {
                rows.append((ticker, items[pass]))
            }
        }
        return rows
    }

    /// The model's user message from the quote lines and the headline block.
    public static func userPrompt(quotes: String, headlines block: String) -> String {
        "Watchlist snapshot (delayed quotes):\n\(quotes)\n\n"
            + (block.isEmpty ? "" : "Recent headlines:\n\(block)\n\n") + "Write today's briefing."
    }

    /// Whether an answer's headline and body both survive stripping.
    public static func acceptable(headline: String, body: String) -> Bool {
        !strip(headline).isEmpty && !strip(body).isEmpty
    }

    /// Whether the pre-filter may be asked to reuse `previous` for a new headline block.
    public static func mayReuse(block: String, previous: WrittenDailyBrief?) -> Bool {
        !block.isEmpty && previous.map { $0.kind != .outage } == true
    }

    /// Jev's "enough new signal?" probability: nothing new only for a confident no (p ≤ 0.25).
    public static func nothingNew(probability p: Double) -> Bool { p.isFinite && p <= 0.25 }

    /// Only the default list's freshly written brief pushes from a request; the 7 am run pushes the cached one.
    public static func pushes(
        isDefault: Bool, kind: WrittenDailyBrief.Kind, fresh: Bool, scheduled: Bool
    ) -> Bool {
        isDefault && kind == .generated && (fresh || scheduled)
    }

    /// The sorted, upper-cased tickers that key a brief.
    public static func tickerKey(_ entries: [WatchEntry]) -> String {
        entries.map { $0.ticker.uppercased() }.sorted().joined(separator: ",")
    }

    /// `daily_brief` (docs/COMPATIBILITY.md#push-events): "Your morning read", the headline as the body, deduplicated
    /// per UTC day.
    public static func pushRequest(userId: String, brief: DailyBrief, day: String) -> PushRequest {
        PushRequest(
            id: "daily_brief-\(day)-\(userId)", userIds: [userId], eventKey: .dailyBrief, eventKind: "daily_brief",
            title: "Your morning read", body: String(brief.headline.prefix(240)),
            data: ["kind": .string("daily_brief")],
            target: PushTarget(type: "home", fields: ["section": .string("daily-brief")]),
            dedupe: [PushDedupe(slot: "daily_brief", key: day)])
    }

    /// The push's day: the brief's own UTC date as `YYYYMMDD`.
    public static func pushDay(_ brief: DailyBrief) -> String {
        String(brief.generatedAt.prefix(10)).filter(\.isNumber)
    }

    public static let systemPrompt = """
        You write a short daily market column for a private investor, in the manner of a seasoned financial \
        newspaper columnist: measured, third person, hedged where the evidence is thin, no exclamation marks, no \
        emojis, no lists. Give one plain-text headline of at most ten words and one paragraph of 120 to 180 words. \
        Mention each ticker inline as $SYM. Ground every claim in the quotes and headlines supplied and invent \
        nothing else; when headlines exist, let them shape the story (dispersion, rotation, relative strength, \
        notable moves). Answer with JSON only: {"headline": string, "body": string}, plain text, no markdown.
        """
}

/// A brief and how it came to be, as the shared cache keeps it.
public struct WrittenDailyBrief: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case generated, reused, outage }
    public var brief: DailyBrief
    public var kind: Kind
    /// The headline block it was written from (the pre-filter compares the next day's against it).
    public var headlines: String
    public var headlineCount: Int

    public init(brief: DailyBrief, kind: Kind, headlines: String, headlineCount: Int) {
        self.brief = brief
        self.kind = kind
        self.headlines = headlines
        self.headlineCount = headlineCount
    }

    /// This brief kept for a new headline block, stamped `now`.
    public func reused(headlines block: String, count: Int, now: Date) -> WrittenDailyBrief {
        var copy = self
        copy.brief.generatedAt = Timestamp.iso8601(now)
        copy.kind = .reused
        copy.headlines = block
        copy.headlineCount = count
        return copy
    }
}
