import BriefsCore
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
    static let headlineTimeout: Duration = .seconds(2)
    static let quoteTimeout: Duration = .seconds(2)
    static let modelTimeout: Duration = .seconds(20)
    static let prefilterTimeout: Duration = .seconds(3)

    let market: MarketDataClient
    let openRouter: OpenRouterClient
    let jev: JevClient

    /// A brief for `tickers`; `previous` is the last one written for the same user and tickers, if any.
    func write(tickers: [WatchEntry], previous: WrittenDailyBrief?, deadline: ContinuousClock.Instant) async
        -> WrittenDailyBrief
    {
        let entries = Array(tickers.prefix(DailyBriefRules.maxTickers))
        async let quotes = quoteLines(entries)
        async let headlineRows = headlines(entries.map(\.ticker))
        let (context, rows) = await (quotes, headlineRows)
        let block = rows.map(\.line).joined(separator: "\n")
        let now = Date()
        if DailyBriefRules.mayReuse(block: block, previous: previous), let previous,
            await nothingNew(block, previous: previous)
        {
            return previous.reused(headlines: block, count: rows.count, now: now)
        }
        let user = DailyBriefRules.userPrompt(quotes: context, headlines: block)
        let outcome = await openRouter.chatJSON(
            decoding: Output.self, models: OpenRouterModels.dailyBrief, system: DailyBriefRules.systemPrompt,
            user: .text(user),
            temperature: 0.4, timeoutPerModel: Self.modelTimeout, deadline: deadline, feature: "daily_brief",
            accept: { DailyBriefRules.acceptable(headline: $0.headline, body: $0.body) })
        guard let answer = outcome.result?.value else {
            return WrittenDailyBrief(
                brief: DailyBriefRules.outage(now), kind: .outage, headlines: block, headlineCount: rows.count)
        }
        return WrittenDailyBrief(
            brief: DailyBrief(
                headline: DailyBriefRules.strip(answer.headline), body: DailyBriefRules.strip(answer.body),
                generatedAt: Timestamp.iso8601(now)),
            kind: .generated, headlines: block, headlineCount: rows.count)
    }

    private struct Output: Decodable, Sendable {
        let headline: String
        let body: String
    }

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
        return zip(entries, quotes).map(DailyBriefRules.quoteLine).joined(separator: "; ")
    }

    struct HeadlineRow: Sendable {
        let ticker: String
        let item: NewsItem
        var line: String { DailyBriefRules.headlineLine(ticker: ticker, title: item.title, source: item.source) }
    }

    /// Each ticker's headlines, fetched in parallel, then picked round-robin (`DailyBriefRules.roundRobin`).
    private func headlines(_ tickers: [String]) async -> [HeadlineRow] {
        let market = self.market
        let perTicker = await withTaskGroup(of: (Int, [NewsItem]).self) { group in
            for (i, ticker) in tickers.enumerated() {
                group.addTask {
                    (
                        i,
                        await withTimeLimit(Self.headlineTimeout) {
                            await market.news(ticker, limit: DailyBriefRules.headlinesPerTicker).items
                        } ?? []
                    )
                }
            }
            var out = [[NewsItem]](repeating: [], count: tickers.count)
            for await (i, items) in group { out[i] = items }
            return out
        }
        return DailyBriefRules.roundRobin(tickers, perTicker).map { HeadlineRow(ticker: $0.ticker, item: $0.item) }
    }

    private struct PrefilterState: Encodable, Sendable {
        let previousHeadline: String
        let previousBody: String
        let previousHeadlines: String
        let headlines: String
    }

    /// Jev's noul "is there enough new signal for a fresh brief?": true only for a confident no (p ≤ 0.25).
    private func nothingNew(_ block: String, previous: WrittenDailyBrief) async -> Bool {
        let result = await jev.noul(
            state: PrefilterState(
                previousHeadline: previous.brief.headline, previousBody: previous.brief.body,
                previousHeadlines: previous.headlines, headlines: block),
            instructions:
                "Do today's headlines carry enough new signal, beyond the previous brief and the headlines it was written from, to justify writing a fresh daily brief?",
            overallTimeout: Self.prefilterTimeout)
        guard case .success(let p) = result else { return false }
        return DailyBriefRules.nothingNew(probability: p)
    }
}
