import Foundation

/// Where a call sits on the constellation's chain (the hop rule): how many sites have already relayed it and their
/// names. Read from `x-mcp-hop` / `x-lattice-hop` and `x-mcp-path`; a site calls out only while `hop < maxHop`.
public struct MCPHop: Sendable, Equatable {
    /// Calls go out only below this depth; pure tools still answer at it.
    static let maxHop = 2
    static let pathMax = 8

    public var hop: Int
    public var path: [String]

    public init(hop: Int = 0, path: [String] = []) {
        self.hop = min(9, max(0, hop))
        self.path = path
    }

    /// The larger of the two hop headers (junk is 0, clamped to 0…9) and the valid names of `x-mcp-path` (first 8).
    public init(header: (String) -> String?) {
        let hop = max(Self.count(header("x-mcp-hop")), Self.count(header("x-lattice-hop")))
        let path = (header("x-mcp-path") ?? "").split(separator: ">", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter(MCPName.isValid)
        self.init(hop: hop, path: Array(path.prefix(Self.pathMax)))
    }

    /// The headers of a call this site (`selfName`) makes one hop deeper.
    public func outboundHeaders(selfName: String) -> [(String, String)] {
        let next = String(hop + 1)
        let trail = (path + [selfName]).filter { !$0.isEmpty }.suffix(Self.pathMax)
        var headers = [("x-mcp-hop", next), ("x-lattice-hop", next)]
        if !trail.isEmpty { headers.append(("x-mcp-path", trail.joined(separator: ">"))) }
        return headers
    }

    /// A leading integer as `parseInt` reads it (optional sign, then digits; anything after is ignored); else 0.
    static func count(_ raw: String?) -> Int {
        guard let raw else { return 0 }
        var text = Substring(raw.trimmingCharacters(in: .whitespaces))
        var negative = false
        if let sign = text.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            text = text.dropFirst()
        }
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return 0 }
        // Long digit strings only ever clamp to 9, so a prefix is enough and never overflows.
        let value = Int(digits.prefix(4)) ?? 0
        return negative ? -value : value
    }
}

/// Site, peer and path names: `^[a-z0-9][a-z0-9-]{0,31}$`.
public enum MCPName {
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), isAlnum(bytes[0]) else { return false }
        return bytes.dropFirst().allSatisfy { isAlnum($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isAlnum(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }
}
