import Contracts
import Foundation

/// How a stored turn is shown to the client, with no I/O: the chart tickers an article offers, the article of a run
/// that is still going, the references and bodies the chat answers with.
public enum ResearchProjection {
    /// The assistant article's text while its run is still going.
    public static let stillRunning = "Research is still running."
    /// What a blocked run says when it gave no readable reason.
    public static let blockedFallback = "This research conversation is blocked and cannot continue."

    static let skipped: Set<String> = [
        "THE", "AND", "FOR", "WITH", "FROM", "THIS", "THAT", "JSON", "USD", "ETF", "CEO", "IPO", "SEC", "PDF", "API",
        "HTTP", "URL",
    ]

    /// The request's ticker first, then symbols named in `texts` (`$SYM`, or a bare word of 1–5 capitals), unique,
    /// at most four.
    public static func chartTickers(ticker: String?, texts: [String]) -> [String] {
        var found: [String] = ticker.map { [$0] } ?? []
        for text in texts {
            for raw in text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "$" || $0 == ".") }) {
                var word = Substring(raw)
                let dollar = word.hasPrefix("$")
                if dollar { word = word.dropFirst() }
                while word.hasSuffix(".") { word = word.dropLast() }
                guard (1...5).contains(word.count), word.allSatisfy({ $0.isASCII && $0.isUppercase }),
                    dollar || (word.count >= 2 && !skipped.contains(String(word)))
                else { continue }
                let symbol = String(word)
                if !found.contains(symbol) { found.append(symbol) }
                if found.count == 4 { return found }
            }
        }
        return found
    }

    /// `article` with its chart tickers, status and (for a blocked run) its reason filled in.
    public static func decorated(_ article: ResearchArticle, ticker: String?, status: ResearchStatus?)
        -> ResearchArticle
    {
        var shown = article
        if article.role == "assistant" {
            shown.chartTickers = chartTickers(ticker: ticker, texts: [article.content])
            shown.status = status
            if status == .blocked { shown.error = article.content }
        }
        return shown
    }

    /// The user's message as the chat echoes it.
    public static func userMessage(_ question: ResearchArticle, clientMessageId: String, ticker: String?)
        -> ResearchArticle
    {
        var echoed = question
        echoed.id = "user-" + clientMessageId
        echoed.chartTickers = ticker.map { [$0] } ?? []
        return echoed
    }

    /// The placeholder article of a run that is still going (a 202).
    public static func pendingArticle(conversationId: String, createdAt: String, ticker: String?) -> ResearchArticle {
        var article = ResearchArticle(
            id: "research-\(conversationId)-running", role: "assistant", content: stillRunning, createdAt: createdAt)
        article.status = .running
        article.chartTickers = ticker.map { [$0] } ?? []
        return article
    }

    /// The memo path, once an answer (not the plain "unavailable" sentence) exists.
    public static func memoPath(conversationId: String, answered: Bool) -> String? {
        answered ? "/v1/agent/threads/\(conversationId)/memo" : nil
    }

    /// A blocked run's reason as prose: never a machine code, never blank.
    public static func blockedReason(_ reason: String?) -> String {
        guard let reason = reason?.trimmingCharacters(in: .whitespacesAndNewlines), !reason.isEmpty,
            DerivationReading.machineText(.string(reason)) == nil
        else { return blockedFallback }
        return String(reason.prefix(2000))
    }

    /// The 409 a blocked turn answers.
    public static func blockedBody(reason: String, conversationId: String) -> [String: String] {
        ["error": reason, "code": "research_blocked", "conversationId": conversationId, "status": "blocked"]
    }

    /// The 404 for a conversation that is not the caller's; the chat adds a code and the requested id.
    public static func notFoundBody(conversationId: String?) -> [String: String] {
        guard let conversationId else { return ["error": "research conversation not found"] }
        return [
            "error": "research conversation not found", "code": "research_conversation_not_found",
            "conversationId": conversationId,
        ]
    }
}
