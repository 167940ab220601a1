import Contracts
import Finance
import Foundation

/// What a photo shows, from whichever path answered.
public struct PhotoReading: Sendable, Equatable {
    public var visibleText: [String]
    public var detected: [Detection]
    public var modelUsed: String

    public init(visibleText: [String], detected: [Detection], modelUsed: String) {
        self.visibleText = visibleText
        self.detected = detected
        self.modelUsed = modelUsed
    }
}

/// Which path produced the identification (`identify.completed` events carry it).
public enum IdentifyPath: String, Sendable {
    case vision, ocr, hint, none
}

/// The offline end of the identify chain (docs/COMPATIBILITY.md#identify-processing), once vision is off or every model
/// failed: OCR's lines matched against the curated seed, then the hint as words the user read for us, else nothing.
public struct ReadingFallback: Sendable {
    /// At most this many OCR lines are reported as visible text.
    public static let visibleLines = 40
    public let matcher: BrandMatcher

    public init(matcher: BrandMatcher = .shared) {
        self.matcher = matcher
    }

    /// The reading from OCR's (scrubbed) `lines` and the `hint`. The candidates are each line and, with several, all
    /// of them joined; a direct seed match in any candidate beats a substring match in an earlier one. A hint is
    /// matched only when OCR matched nothing. `ocrRan` names the path when neither matched (`ocr:tesseract` or
    /// `none`).
    public func reading(ocrLines lines: [String], ocrRan: Bool, hint: String?) -> (PhotoReading, IdentifyPath) {
        let visible = Array(lines.prefix(Self.visibleLines))
        if let (match, text) = seedMatch(lines + (lines.count > 1 ? [lines.joined(separator: " ")] : [])) {
            return (reading(match, text: text, visible: visible, modelUsed: "ocr:tesseract"), .ocr)
        }
        if let hint, let match = matcher.match(hint) {
            return (reading(match, text: hint, visible: visible, modelUsed: "hint:seed"), .hint)
        }
        return (PhotoReading(visibleText: visible, detected: [], modelUsed: ocrRan ? "ocr:tesseract" : "none"), .none)
    }

    /// Direct matches across all candidates first, then the longest substring match.
    private func seedMatch(_ candidates: [String]) -> (BrandMatcher.Match, String)? {
        for text in candidates { if let m = matcher.direct(text) { return (m, text) } }
        for text in candidates { if let m = matcher.longestSubstring(text) { return (m, text) } }
        return nil
    }

    private func reading(_ match: BrandMatcher.Match, text: String, visible: [String], modelUsed: String)
        -> PhotoReading
    {
        PhotoReading(
            visibleText: visible,
            detected: [
                Detection(
                    brand: Self.displayName(of: match, in: text), sector: match.entry.sector,
                    confidence: match.method == .direct ? .high : .medium)
            ],
            modelUsed: modelUsed)
    }

    /// The brand as it was read: the matched words of `text` in their original case.
    public static func displayName(of match: BrandMatcher.Match, in text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if match.method == .substring, let range = trimmed.range(of: match.key, options: .caseInsensitive) {
            return String(trimmed[range])
        }
        return trimmed
    }
}
