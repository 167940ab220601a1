/// Internal text forms used by the matchers.
enum TextForms {
    /// `s` without leading/trailing whitespace (Unicode whitespace, newlines included).
    static func trimmed(_ s: String) -> String {
        guard let first = s.firstIndex(where: { !$0.isWhitespace }),
            let last = s.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(s[first...last])
    }

    /// The "loose" comparison form of a normalized text: Latin diacritics folded (é → e), apostrophes dropped
    /// (`mcdonald's` → `mcdonalds`), every other run of non-alphanumeric characters turned into one space
    /// (`7-Eleven` → `7 eleven`, `CVS/pharmacy` → `cvs pharmacy`), trimmed. Tokens are separated by single spaces.
    static func loose(_ normalized: String) -> String {
        var out = ""
        out.reserveCapacity(normalized.utf8.count)
        var pendingSpace = false
        for ch in normalized.lowercased() {
            if ch == "'" || ch == "\u{2019}" || ch == "\u{2018}" || ch == "\u{02BC}" || ch == "`" { continue }
            guard ch.isLetter || ch.isNumber else {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            for scalar in ch.unicodeScalars {
                if scalar.properties.generalCategory == .nonspacingMark { continue }
                if let folded = foldTable[scalar] {
                    out.append(folded)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Tokens of a loose form.
    static func tokens(_ loose: String) -> [Substring] {
        loose.split(separator: " ")
    }

    private static let foldTable: [Unicode.Scalar: String] = {
        let groups: [(String, String)] = [
            ("àáâãäåāăą", "a"), ("çćĉċč", "c"), ("ďđ", "d"), ("èéêëēĕėęě", "e"), ("ĝğġģ", "g"), ("ĥħ", "h"),
            ("ìíîïĩīĭįı", "i"), ("ĵ", "j"), ("ķ", "k"), ("ĺļľŀł", "l"), ("ñńņňŉ", "n"), ("òóôõöøōŏő", "o"),
            ("ŕŗř", "r"), ("śŝşš", "s"), ("ţťŧ", "t"), ("ùúûüũūŭůűų", "u"), ("ŵ", "w"), ("ýÿŷ", "y"),
            ("źżž", "z"), ("æ", "ae"), ("œ", "oe"), ("ß", "ss"),
        ]
        var table: [Unicode.Scalar: String] = [:]
        for (letters, replacement) in groups {
            for scalar in letters.unicodeScalars { table[scalar] = replacement }
        }
        return table
    }()
}
