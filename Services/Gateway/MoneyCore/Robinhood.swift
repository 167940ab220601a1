/// The Robinhood MCP link's rules: which tokens are accepted, what of them is ever shown, and the deep link.
public enum RobinhoodLink {
    public static let settingsNote =
        "Paste your Robinhood agent MCP bearer under Home to unlock Open in Robinhood on ticker pages. Mapvest opens Robinhood for you to place orders there — we never submit broker orders. Key is encrypted in Postgres and survives redeploys."
    public static let linkNote =
        "Opens Robinhood's page for this ticker. You place any order there yourself — Mapvest never submits broker orders."
    public static let notConfiguredNote = "Connect a Robinhood MCP key under Home → settings first."
    public static let tokenError = "token required (20–8000 chars)"

    /// The trimmed token when its length is accepted (20…8000 characters).
    public static func token(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingWhitespace, (20...8000).contains(trimmed.count) else { return nil }
        return trimmed
    }

    /// The last four characters, the only part of a token ever shown.
    public static func last4(_ token: String) -> String { String(token.suffix(4)) }

    /// The first 16 hex digits of the token's SHA-256.
    public static func fingerprint(sha256: [UInt8]) -> String {
        sha256.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// The ticker trimmed and upper-cased when it matches `^[A-Z][A-Z0-9.]{0,5}$`.
    public static func ticker(_ raw: String?) -> String? {
        guard let value = raw?.trimmingWhitespace.uppercased(), let first = value.unicodeScalars.first,
            (1...6).contains(value.unicodeScalars.count), ("A"..."Z").contains(first),
            value.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." })
        else { return nil }
        return value
    }

    public static func linkOut(ticker: String) -> String { "https://robinhood.com/us/en/stocks/\(ticker)/" }
}

extension String {
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
