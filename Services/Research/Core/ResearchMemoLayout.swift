import Contracts

/// What a conversation's memo PDF says, in order, with no drawing: the title, the research-only notice, then each
/// turn under "You" or "Research" (the plain "unavailable" sentence left out).
public enum ResearchMemoLayout {
    /// One paragraph of the memo.
    public struct Block: Sendable, Equatable {
        public var text: String
        public var size: Double
        public var bold: Bool
        public var gray: Double
        public var after: Double
    }

    public static func blocks(_ thread: AgentThreadSummary) -> [Block] {
        var blocks = [
            Block(text: thread.title, size: 18, bold: true, gray: 0.05, after: 4),
            Block(
                text: "Research memo · updated \(thread.updatedAt.prefix(10)) · Research only. Not investment advice.",
                size: 9, bold: false, gray: 0.45, after: 18),
        ]
        for message in thread.messages ?? [] where message.provider != "unavailable" {
            let user = message.role == "user"
            blocks.append(Block(text: user ? "You" : "Research", size: 10, bold: true, gray: 0.35, after: 2))
            blocks.append(Block(text: message.content, size: 11, bold: false, gray: 0.1, after: 14))
        }
        return blocks
    }

    /// `research-<id>.pdf` with characters outside `[A-Za-z0-9._-]` as `_`.
    public static func fileName(_ conversationId: String) -> String {
        let safe = conversationId.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" }
        return "research-\(String(safe)).pdf"
    }
}

extension ResearchMemoLayout {
    /// A plain document: `title`, then `text` in small type (a packet export).
    public static func document(title: String, text: String) -> [Block] {
        [
            Block(text: title, size: 16, bold: true, gray: 0.05, after: 10),
            Block(text: text, size: 9, bold: false, gray: 0.1, after: 0),
        ]
    }
}
