/// Where the layered memos are cached for 24 h (docs/decisions/0050-layered-memo.md): Redis
/// `mapvest:memo:v1:<kind>:<KEY>` (the ticker, or the GICS sector for the environment brief, upper-cased), holding
/// `{"summary": "…", "body": <the route's 200 body>}`. The rating reads `summary` from the same keys
/// (Services/Rating/Adapters/ResearchMemos.swift), so what a route caches is what the rating cites.
public enum ResearchMemoCache {
    public enum Kind: String, Sendable {
        case synthesis, pulse, environment
    }

    /// The Redis key of a memo.
    public static func key(_ kind: Kind, _ key: String) -> String {
        "mapvest:memo:v1:\(kind.rawValue):\(key.uppercased())"
    }

    /// A cached memo: the one-line summary the rating cites and the body the route answers.
    public struct Entry<Body: Codable & Sendable>: Codable, Sendable {
        public var summary: String
        public var body: Body

        public init(summary: String, body: Body) {
            self.summary = summary
            self.body = body
        }
    }
}
