import Contracts
import Crypto
import Redis

/// Where snapped photos wait for Identify, by the key the identify command carries.
protocol PhotoClaims: Sendable {
    /// Stores the photo and returns its key.
    func put(_ bytes: [UInt8]) async throws -> String
}

/// Claim check for snapped photos: the bytes go to Redis under a random key with a short TTL; the identify command
/// carries only the key and Identify deletes it after use. Photos never reach Postgres, logs or events.
struct PhotoStore: PhotoClaims {
    let redis: RedisClient
    let ttl: Duration

    /// Stores the photo and returns its key.
    func put(_ bytes: [UInt8]) async throws -> String {
        let key = IdentifyPhotoCommand.photoKeyPrefix + Digest.randomHex(bytes: 16)
        try await redis.set(key, bytes, ttl: ttl)
        return key
    }
}
