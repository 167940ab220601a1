import Contracts
import Foundation

/// Ticker memos' pure parts: the facts the model is given, the sources returned, the answer's floor and the
/// `memo_finished` push.
public enum MemoRules {
    public static let missingKey = "memo unavailable: OPENROUTER_API_KEY is not set"

    /// A headline as the memo reads it.
    public struct Headline: Sendable, Equatable {
        public let title: String
        public let url: String
        public let publishedAt: String

        public init(title: String, url: String, publishedAt: String) {
            self.title = title
            self.url = url
            self.publishedAt = publishedAt
        }
    }

    /// The filings, then the headlines, as the memo's sources.
    public static func sources(filings: [SECFiling], headlines: [Headline]) -> [MemoSource] {
        filings.map { MemoSource(title: "\($0.form) filed \($0.filedAt)", url: $0.url) }
            + headlines.map { MemoSource(title: $0.title, url: $0.url) }
    }

    /// The model's user message: the ticker, its quote, the filings and the headlines, one per line.
    public static func prompt(ticker: String, quote: Quote?, filings: [SECFiling], headlines: [Headline]) -> String {
        var facts = ["Ticker: \(ticker)"]
        if let q = quote {
            facts.append(String(format: "Price %.2f %@, %+.2f%% today", q.price, q.currency, q.changePct))
        }
        facts +=
            filings.map { "Filing: \($0.form) on \($0.filedAt)" }
            + headlines.map { "Headline (\($0.publishedAt)): \($0.title)" }
        return facts.joined(separator: "\n") + "\n\nWrite the memo."
    }

    /// An answer is kept when its trimmed memo has at least 100 characters.
    public static func acceptable(_ memo: String) -> Bool {
        memo.trimmingCharacters(in: .whitespacesAndNewlines).count >= 100
    }

    /// `memo_finished` (docs/COMPATIBILITY.md#push-events): `Your $T brief is ready`, once per ticker per user per UTC
    /// day.
    public static func push(userId: String, ticker: String, day: String) -> PushRequest {
        PushRequest(
            id: "memo_finished-\(day)-\(ticker)-\(userId)", userIds: [userId], eventKey: .memoFinished,
            eventKind: "memo_finished", title: "Your $\(ticker) brief is ready",
            body: "Your memo on $\(ticker) is ready to read, with its sources.",
            data: ["kind": .string("memo_finished"), "ticker": .string(ticker)],
            target: PushTarget(type: "company", fields: ["ticker": .string(ticker)]),
            dedupe: [PushDedupe(slot: "memo_finished", key: "\(day)-\(ticker)")])
    }

    public static let systemPrompt = """
        You write a short investment memo on one listed company for a private investor: plain prose, measured and \
        hedged, 150 to 250 words, no lists, no advice to buy or sell. Use only the facts given; say when they are \
        thin. Answer with one JSON object {"memo": string}.
        """
}
