import BriefsCore
import Contracts
import Crypto
import Foundation
import MarketData
import Messaging
import OpenRouter
import Postgres
import Runtime
import Scheduling
import ServiceKit

/// Ticker memos (`POST /v1/memo`) and the EDGAR filings route. A memo is written by the OpenRouter cascade from the
/// quote, the recent SEC filings and headlines, which come back as its sources; a signed-in caller's memo is
/// stored (`briefs.ticker_memos`) and announced by `memo_finished` after the reply. Without a model key the route
/// answers 503 and writes nothing — there is no fallback text.
struct TickerMemos: Sendable {
    static let pushJob = "memo_finished.push"

    let db: PostgresPool
    let market: MarketDataClient
    let openRouter: OpenRouterClient
    let sec: SECFilings
    let claims: SlotClaims
    let context: ServiceContext

    static let migrations: [Migration] = [
        Migration(
            version: 21, name: "ticker memos",
            sql: """
                CREATE TABLE IF NOT EXISTS briefs.ticker_memos (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL,
                    ticker TEXT NOT NULL,
                    memo TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    sources JSONB NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
                );
                CREATE INDEX IF NOT EXISTS ticker_memos_user_idx ON briefs.ticker_memos (user_id, ticker, created_at DESC);
                """)
    ]

    func filings(_ command: SECFilingsCommand, deadline: ContinuousClock.Instant) async -> Reply {
        do {
            return .json(200, try await sec.filings(command.ticker, deadline: deadline))
        } catch .unknownTicker {
            return .error(404, "ticker not found at SEC EDGAR")
        } catch {
            return .error(502, "SEC EDGAR unavailable")
        }
    }

    func memo(_ command: TickerMemoCommand, deadline: ContinuousClock.Instant) async throws -> Reply {
        guard openRouter.isConfigured else { return .error(503, MemoRules.missingKey) }
        let ticker = command.ticker
        let secDeadline = min(deadline, ContinuousClock.now + .seconds(4))
        async let quote = market.quote(ticker)
        async let news = market.news(ticker, limit: 5)
        let filings = Array((try? await sec.filings(ticker, deadline: secDeadline))?.filings.prefix(4) ?? [])
        let headlines = await news.items.map {
            MemoRules.Headline(title: $0.title, url: $0.url, publishedAt: $0.publishedAt)
        }
        let sources = MemoRules.sources(filings: filings, headlines: headlines)
        let prompt = MemoRules.prompt(ticker: ticker, quote: await quote, filings: filings, headlines: headlines)
        struct Output: Decodable, Sendable { let memo: String }
        let outcome = await openRouter.chatJSON(
            decoding: Output.self, models: OpenRouterModels.dailyBrief, system: MemoRules.systemPrompt,
            user: .text(prompt), temperature: 0.3, deadline: deadline - .milliseconds(300), feature: "ticker_memo",
            accept: { MemoRules.acceptable($0.memo) })
        guard let answer = outcome.result else { return .error(502, "memo model failed") }
        let response = TickerMemoResponse(
            ticker: ticker, provider: answer.modelUsed,
            memo: answer.value.memo.trimmingCharacters(in: .whitespacesAndNewlines),
            sources: sources, generatedAt: Timestamp.iso8601(Date()))
        guard let userId = command.userId else { return .json(200, response) }
        try await store(userId: userId, response)
        let day = BriefsCalendar.day(Date())
        let body = Array(try JSONEncoder().encode(MemoRules.push(userId: userId, ticker: ticker, day: day)))
        let (claims, context) = (self.claims, self.context)
        return Reply.json(200, response).then {
            let slot = "\(day):\(userId):\(ticker)"
            let outcome = try await claims.once(
                job: Self.pushJob, slot: slot, lease: .seconds(60), deadline: ContinuousClock.now + .seconds(5)
            ) {
                await publishRetrying(context: context, topic: Topics.pushRequests, key: userId, value: body)
            }
            if outcome == .failed || outcome == .stillHeld { throw PushNotDelivered(slot: "\(Self.pushJob) \(slot)") }
        }
    }

    private func store(userId: String, _ memo: TickerMemoResponse) async throws {
        let sources = String(decoding: try JSONEncoder().encode(memo.sources), as: UTF8.self)
        try await db.execute(
            """
            INSERT INTO briefs.ticker_memos (id, user_id, ticker, memo, provider, sources)
            VALUES (\("memo_" + Digest.randomHex(bytes: 12)), \(userId), \(memo.ticker), \(memo.memo), \(memo.provider),
                    \(sources)::jsonb)
            """)
    }
}
