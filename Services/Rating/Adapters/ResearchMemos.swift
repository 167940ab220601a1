import Foundation
import Redis
import Runtime

/// Cache-only research memos the rating may use but never builds (docs/COMPATIBILITY.md#rating-evidence): the synthesis
/// memo and the demand pulse per ticker, the environment brief per GICS sector. Their producers (the briefs and
/// research features) write JSON `{"summary": "…"}` under `mapvest:memo:v1:<kind>:<KEY>`; until something writes them
/// the three sources are simply absent.
public struct ResearchMemos: Sendable {
    public enum Kind: String, Sendable {
        case synthesis, pulse, environment
    }

    let redis: RedisClient?

    public init(redis: RedisClient?) { self.redis = redis }

    /// The Redis key of a memo (`key` is the ticker, or the sector for the environment brief).
    public static func redisKey(_ kind: Kind, _ key: String) -> String {
        "mapvest:memo:v1:\(kind.rawValue):\(key.uppercased())"
    }

    /// The memo's summary, or nil when absent, unreadable or empty.
    public func summary(_ kind: Kind, key: String) async -> String? {
        struct Memo: Decodable {
            let summary: String?
            let text: String?
        }
        guard let redis, let bytes = try? await redis.get(Self.redisKey(kind, key)),
            let memo = try? JSONDecoder().decode(Memo.self, from: Data(bytes)),
            let text = (memo.summary ?? memo.text)?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
        else { return nil }
        return text
    }
}
