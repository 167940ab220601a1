/// The byte-level pre-check of `Redaction.scrub`: one pass over a text's UTF-8 that says whether `scrub` could
/// change it. It may answer yes for text `scrub` then leaves alone (it over-approximates `isSensitiveWord`), never
/// no for text `scrub` would change, so the common case — a span name or value with nothing secret — costs no
/// allocation and no `Character` work.
enum RedactionScan {
    static func mayNeedScrubbing(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var start = 0
            var previousWasBearer = false
            for index in 0...bytes.count {
                if index < bytes.count {
                    if bytes[index] == 0x3F { return true }  // a query string
                    if bytes[index] != 0x20 { continue }
                }
                let word = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if previousWasBearer || mayBeSensitive(word) { return true }
                previousWasBearer = isBearer(word)
                start = index + 1
            }
            return false
        }
    }

    /// True for every word `Redaction.isSensitiveWord` flags (and a few more): an e-mail shape, an Expo push token, a
    /// lone 4–8 digit code, a UUID, or a run of 16+ ASCII letters and digits mixing both.
    private static func mayBeSensitive(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !word.isEmpty else { return false }
        var sawAt = false
        var sawP = false
        var dashes = 0
        var run = 0
        var runDigits = 0
        for b in word {
            if b == 0x40 { sawAt = true } else if b == 0x2E, sawAt { return true }
            if b == 0x50 { sawP = true } else if b == 0x2D { dashes += 1 }
            if isDigit(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) {
                run += 1
                if isDigit(b) { runDigits += 1 }
            } else {
                if isOpaque(run, runDigits) { return true }
                (run, runDigits) = (0, 0)
            }
        }
        if isOpaque(run, runDigits) { return true }
        var (low, high) = (0, word.count)
        while low < high, isTrimmed(word[low]) { low += 1 }
        while high > low, isTrimmed(word[high - 1]) { high -= 1 }
        if (4...8).contains(high - low), word[low..<high].allSatisfy(isDigit) { return true }
        // "PushToken" has a `P`, a UUID four dashes: only then the slower searches.
        return (sawP && contains(word, pushToken)) || (dashes >= 4 && word.count >= 36 && containsUUID(word))
    }

    private static let pushToken = Array("PushToken".utf8)

    private static func isOpaque(_ run: Int, _ digits: Int) -> Bool { run >= 16 && digits >= 2 && run - digits >= 2 }

    private static func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }

    /// The characters `isSensitiveWord` trims from a word's ends: `"'(),;:<>[]{}`.
    private static func isTrimmed(_ b: UInt8) -> Bool {
        switch b {
        case 0x22, 0x27, 0x28, 0x29, 0x2C, 0x3A, 0x3B, 0x3C, 0x3E, 0x5B, 0x5D, 0x7B, 0x7D: true
        default: false
        }
    }

    private static func isBearer(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        word.count == 6 && zip(word, "bearer".utf8).allSatisfy { ($0 | 0x20) == $1 }
    }

    private static func contains(_ word: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard word.count >= needle.count else { return false }
        return (0...(word.count - needle.count)).contains { start in
            (0..<needle.count).allSatisfy { word[start + $0] == needle[$0] }
        }
    }

    private static func containsUUID(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        (0...(word.count - 36)).contains { start in
            (0..<36).allSatisfy { i in
                let b = word[start + i]
                return i == 8 || i == 13 || i == 18 || i == 23
                    ? b == 0x2D : isDigit(b) || (0x61...0x66).contains(b | 0x20)
            }
        }
    }
}
