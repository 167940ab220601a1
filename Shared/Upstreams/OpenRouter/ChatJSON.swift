#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The user message: plain text, or text plus one image (vision).
public enum UserContent: Sendable, Equatable {
    case text(String)
    /// `imageURL` is normally a `data:image/jpeg;base64,…` URL.
    case textAndImage(text: String, imageURL: String)

    /// Text plus a JPEG sent inline as a base64 data URL.
    public static func textAndJPEG(_ text: String, jpeg: [UInt8]) -> UserContent {
        .textAndImage(text: text, imageURL: "data:image/jpeg;base64," + Data(jpeg).base64EncodedString())
    }
}

/// Token usage as OpenRouter reports it (cost telemetry).
public struct ChatUsage: Sendable, Equatable {
    public var promptTokens: Int
    public var completionTokens: Int
    public var totalTokens: Int
    /// Credits charged, when OpenRouter reports it.
    public var cost: Double?

    public init(promptTokens: Int, completionTokens: Int, totalTokens: Int, cost: Double? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = totalTokens
        self.cost = cost
    }
}

/// A model's parsed JSON answer, with the model id that produced it.
public struct ChatJSONResult<Value: Sendable>: Sendable {
    public var value: Value
    /// The id from the caller's list that answered (the contract's `modelUsed`).
    public var modelUsed: String
    public var usage: ChatUsage?

    public init(value: Value, modelUsed: String, usage: ChatUsage?) {
        self.value = value
        self.modelUsed = modelUsed
        self.usage = usage
    }
}

/// Why one model of the cascade did not count. Never carries prompt or content text.
public struct ChatModelFailure: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Error, Sendable, Equatable {
        case httpStatus(Int)
        case timeout
        case network
        /// No `choices[0].message.content`, or an empty one.
        case emptyContent
        /// The content held no parseable JSON object of the requested shape.
        case invalidJSON
        /// The caller's `accept` check refused the parsed value.
        case rejected
        /// The overall deadline was spent before this model was tried.
        case deadlineExceeded
    }

    public var model: String
    public var reason: Reason

    public init(model: String, reason: Reason) {
        self.model = model
        self.reason = reason
    }

    public var description: String { "\(model): \(reason.label)" }
}

extension ChatModelFailure.Reason {
    /// Bounded label for logs and metrics.
    public var label: String {
        switch self {
        case .httpStatus(let s): "http_\(s)"
        case .timeout: "timeout"
        case .network: "network_error"
        case .emptyContent: "empty_content"
        case .invalidJSON: "invalid_json"
        case .rejected: "rejected"
        case .deadlineExceeded: "deadline_exceeded"
        }
    }
}

/// What a `chatJSON` cascade produced.
public enum ChatJSONOutcome<Value: Sendable>: Sendable {
    /// A model answered with a valid JSON object.
    case answered(ChatJSONResult<Value>)
    /// `OPENROUTER_API_KEY` is not set; no request was made.
    case noAPIKey
    /// Every model failed (in order); the caller takes its own fallback.
    case allModelsFailed([ChatModelFailure])

    /// The answer, or nil for `noAPIKey` and `allModelsFailed`.
    public var result: ChatJSONResult<Value>? {
        if case .answered(let r) = self { return r }
        return nil
    }
}

/// Turns a model's content string into JSON object bytes: strips a Markdown code fence, then keeps the
/// first `{` through the last `}`. Nil when there is no such span.
public func extractJSONObject(_ content: String) -> [UInt8]? {
    var text = Substring(content).trimmingWhitespace()
    if text.hasPrefix("```") {
        text = text.dropFirst(3)
        // An info string such as `json` runs to the end of the fence line.
        if let newline = text.firstIndex(where: { $0 == "\n" || $0 == "\r" }) {
            let info = text[..<newline].trimmingWhitespace()
            if info.allSatisfy({ $0.isLetter }) { text = text[newline...] }
        } else if text.lowercased().hasPrefix("json") {
            text = text.dropFirst(4)
        }
        text = text.trimmingWhitespace()
        if text.hasSuffix("```") { text = text.dropLast(3) }
    }
    let bytes = Array(text.utf8)
    guard let first = bytes.firstIndex(of: UInt8(ascii: "{")),
        let last = bytes.lastIndex(of: UInt8(ascii: "}")), last > first
    else { return nil }
    return Array(bytes[first...last])
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}
