/// The words of the seed's names, each numbered once when the matcher is built. A text's loose tokens become those
/// numbers (`unknown` for a word no seed name uses), so "does this name occur in the text as whole words" compares
/// runs of integers: no string is built per (text, name) pair.
struct TokenVocabulary: Sendable {
    /// The number of a word no seed name uses: it never equals a name's token.
    static let unknown = -1

    private var numbers: [String: Int] = [:]

    /// The numbers of a loose form's tokens, numbering the words not seen before.
    mutating func add(_ loose: String) -> [Int] {
        TextForms.tokens(loose).map { token in
            let word = String(token)
            if let number = numbers[word] { return number }
            let number = numbers.count
            numbers[word] = number
            return number
        }
    }

    /// The numbers of a text's loose tokens; words no seed name uses are `unknown`.
    func numbers(of tokens: [Substring]) -> [Int] {
        tokens.map { numbers[String($0)] ?? Self.unknown }
    }
}

/// Whole-token containment over numbered tokens (`TokenVocabulary`).
enum TokenRuns {
    /// Whether `needle` occurs in `haystack` starting at `start`.
    static func occurs(_ needle: [Int], in haystack: [Int], at start: Int) -> Bool {
        guard !needle.isEmpty, start >= 0, haystack.count - start >= needle.count else { return false }
        for offset in needle.indices where haystack[start + offset] != needle[offset] { return false }
        return true
    }

    /// Whether `needle` occurs anywhere in `haystack` as consecutive tokens.
    static func occurs(_ needle: [Int], in haystack: [Int]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            if occurs(needle, in: haystack, at: start) { return true }
        }
        return false
    }
}
