import Redis

/// Reads and deletes claim-checked photos that the gateway stored in Redis.
struct PhotoClaims: Sendable {
    let redis: RedisClient

    /// The photo bytes, or nil when the claim expired or Redis is unreachable.
    func load(_ key: String) async -> [UInt8]? {
        guard key.hasPrefix("mapvest:photo:") else { return nil }
        return try? await redis.get(key)
    }

    func delete(_ key: String) async {
        guard key.hasPrefix("mapvest:photo:") else { return }
        _ = try? await redis.delete(key)
    }
}
