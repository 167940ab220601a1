import Contracts
import Foundation
import Jev
import MarketData
import OpenRouter
import Redis
import Runtime

/// Writes Mapvest Daily for a list's tickers (docs/COMPATIBILITY.md#daily-brief): quotes and round-robin headlines as
/// context, the Jev pre-filter that keeps the previous brief when the headlines carry nothing new, then one
/// OpenRouter JSON call on the daily-brief chain. Never fails: any model failure is the outage brief. The text
/// never names a model or provider.
struct DailyBriefWriter: Sendable {
    static let emptyHeadline = "Nothing on your watchlist yet."
    static let emptyBody = "Save a ticker from any detail page and your daily briefing will be written here."
    static let outageHeadline = "Daily briefing offline."
    static let outageBody =
        "Market commentary is unavailable right now. Your saved tickers and quotes are still on each detail page, and the column will be written again on your next visit."
    static let headlinesPerTicker = 2
    static let headlineTotal = 8
    static let headlineTimeout: Duration = .seconds(2)
    static let quoteTimeout: Duration = .seconds(2)
    static let modelTimeout: Duration = .seconds(20)
    static let prefilterTimeout: Duration = .seconds(3)
    /// At most this many tickers go into the prompt.
    static let maxTickers = 40

    /// A brief and how it came to be.
    struct Written: Codable, Sendable {
        enum Kind: String, Codable, Sendable { case generated, reused, outage }
        var brief: DailyBrief
        var kind: Kind
        /// The headline block it was written from (the pre-filter compares the next day's against it).
        var headlines: String
        var headlineCount: Int
    }

    let market: MarketDataClient
    let openRouter: OpenRouterClient
    let jev: JevClient

    /// A brief for `tickers`; `previous` is the last one written for the same user and tickers, if any.
    func write(tickers: [WatchEntry], previous: Written?, deadline: ContinuousClock.Instant) async -> Written {
        let entries = Array(tickers.prefix(Self.maxTickers))
        async let quotes = quoteLines(entries)
        async let headlineRows = headlines(entries.map(\.ticker))
        let (context, rows) = await (quotes, headlineRows)
        let block = rows.map(\.line).joined(separator: "\n")
        let now = Date()
        if !block.isEmpty, let previous, previous.kind != .outage, await nothingNew(block, previous: previous) {
            var reused = previous
            reused.brief.generatedAt = Timestamp.iso8601(now)
            reused.kind = .reused
            reused.headlines = block
            reused.headlineCount = rows.count
            return reused
        }
        let user =
            "Watchlist snapshot (delayed quotes):\n\(context)\n\n"
            + (block.isEmpty ? "" : "Recent headlines:\n\(block)\n\n") + "Write today's briefing."
        let outcome = await openRouter.chatJSON(
            decoding: Output.self, models: OpenRouterModels.dailyBrief, system: Self.systemPrompt, user: .text(user),
            temperature: 0.4, timeoutPerModel: Self.modelTimeout, deadline: deadline, feature: "daily_brief",
            accept: { !Self.strip($0.headline).isEmpty && !Self.strip($0.body).isEmpty })
        guard let answer = outcome.result?.value else {
            return Written(brief: Self.outage(now), kind: .outage, headlines: block, headlineCount: rows.count)
        }
        return Written(
            brief: DailyBrief(
                headline: Self.strip(answer.headline), body: Self.strip(answer.body),
                generatedAt: Timestamp.iso8601(now)),
            kind: .generated, headlines: block, headlineCount: rows.count)
    }

    static func empty(_ now: Date) -> DailyBrief {
        DailyBrief(headline: emptyHeadline, body: emptyBody, generatedAt: Timestamp.iso8601(now))
    }

    static func outage(_ now: Date) -> DailyBrief {
        DailyBrief(headline: outageHeadline, body: outageBody, generatedAt: Timestamp.iso8601(now))
    }

    /// Models wrap text in `**bold**` even when asked not to: outer `**…**`/`__…__` and every remaining pair go.
    static func strip(_ text: String) -> String {
        var s = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for mark in ["**", "__"] where s.hasPrefix(mark) && s.hasSuffix(mark) && s.count > 2 * mark.count {
            s = String(s.dropFirst(mark.count).dropLast(mark.count))
        }
        return s.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "__", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private struct Output: Decodable, Sendable {
        let headline: String
        let body: String
    }

    static let systemPrompt = """
        You write a short daily market column for a private investor, in the manner of a seasoned financial \
        newspaper columnist: measured, third person, hedged where the evidence is thin, no exclamation marks, no \
        emojis, no lists. Give one plain-text headline of at most ten words and one paragraph of 120 to 180 words. \
        Mention each ticker inline as $SYM. Ground every claim in the quotes and headlines supplied and invent \
        nothing else; when headlines exist, let them shape the story (dispersion, rotation, relative strength, \
        notable moves). Answer with JSON only: {"headline": string, "body": string}, plain text, no markdown.
        """

    // MARK: - Context

    /// `$SYM (name) $price ±x.xx%` per ticker, `; `-separated; a ticker without a quote is named alone.
    private func quoteLines(_ entries: [WatchEntry]) async -> String {
        let market = self.market
        let quotes = await withTaskGroup(of: (Int, Quote?).self) { group in
            for (i, entry) in entries.enumerated() {
                group.addTask {
                    (i, await withTimeLimit(Self.quoteTimeout) { await market.quote(entry.ticker) } ?? nil)
                }
            }
            var out = [Quote?](repeating: nil, count: entries.count)
            for await (i, quote) in group { out[i] = quote }
            return out
        }
        return zip(entries, quotes).map { entry, quote in
            var parts = ["$\(entry.ticker)"]
            if let name = entry.name { parts.append("(\(name))") }
            if let quote, quote.price.isFinite, quote.changePct.isFinite {
                parts.append("$" + String(format: "%.2f", quote.price))
                parts.append((quote.changePct >= 0 ? "+" : "") + String(format: "%.2f", quote.changePct) + "%")
            }
            return parts.joined(separator: " ")
        }.joined(separator: "; ")
    }

    struct HeadlineRow: Sendable {
        let ticker: String
        let item: NewsItem
        var line: String { "- $\(ticker): \(item.title) [\(item.source)]" }
    }

    /// Two headlines per ticker, at most eight in all, taken round-robin so every ticker gets one before any gets two.
    private func headlines(_ tickers: [String]) async -> [HeadlineRow] {
        let market = self.market
        let perTicker = await withTaskGroup(of: (Int, [NewsItem]).self) { group in
            for (i, ticker) in tickers.enumerated() {
                group.addTask {
                    (
                        i,
                        await withTimeLimit(Self.headlineTimeout) {
                            await market.news(ticker, limit: Self.headlinesPerTicker).items
                        } ?? []
                    )
                }
            }
            var out = [[NewsItem]](repeating: [], count: tickers.count)
            for await (i, items) in group { out[i] = items }
            return out
        }
        var rows: [HeadlineRow] = []
        for pass in 0..<Self.headlinesPerTicker {
            for (ticker, items) in zip(tickers, perTicker) where pass < items.count && rows.count < Self.headlineTotal {
                rows.append(HeadlineRow(ticker: ticker, item: items[pass]))
            }
        }
        return rows
    }

    private struct PrefilterState: Encodable, Sendable {
        let previousHeadline: String
        let previousBody: String
        let previousHeadlines: String
        let headlines: String
    }

    /// Jev's noul "is there enough new signal for a fresh brief?": true only for a confident no (p ≤ 0.25).
    private func nothingNew(_ block: String, previous: Written) async -> Bool {
        let result = await jev.noul(
            state: PrefilterState(
                previousHeadline: previous.brief.headline, previousBody: previous.brief.body,
                previousHeadlines: previous.headlines, headlines: block),
            instructions:
                "Do today's headlines carry enough new signal, beyond the previous brief and the headlines it was written from, to justify writing a fresh daily brief?",
            overallTimeout: Self.prefilterTimeout)
        guard case .success(let p) = result, p.isFinite else { return false }
        return p <= 0.25
    }
}
