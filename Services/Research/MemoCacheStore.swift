import Foundation
import Redis
import ResearchCore
import Runtime

/// Reads and writes the layered memos' Redis cache (`ResearchMemoCache`: 24 h, `{summary, body}` under the key the
/// rating reads). An unreadable entry is a miss; a failed write is logged and the answer still goes out.
struct MemoCacheStore: Sendable {
    let redis: RedisClient
    let logger: Logger

    static let ttl: Duration = .seconds(86_400)

    func read<Body: Codable & Sendable>(_ kind: ResearchMemoCache.Kind, _ key: String, as: Body.Type) async -> Body? {
        guard let bytes = try? await redis.get(ResearchMemoCache.key(kind, key)) else { return nil }
        return try? JSONDecoder().decode(ResearchMemoCache.Entry<Body>.self, from: Data(bytes)).body
    }

    func write<Body: Codable & Sendable>(_ kind: ResearchMemoCache.Kind, _ key: String, summary: String, body: Body)
        async
    {
        do {
            let entry = ResearchMemoCache.Entry(summary: summary, body: body)
            _ = try await redis.set(
                ResearchMemoCache.key(kind, key), Array(try JSONEncoder().encode(entry)), ttl: Self.ttl)
        } catch {
            logger.warning("\(kind.rawValue) memo not cached", [LogKeys.error: "\(error)"])
        }
    }
}
