import Contracts
import Crypto
import HTTPServer
import Redis
import Runtime

/// Where snapped photos wait for Identify, by the key the identify command carries.
protocol PhotoClaims: Sendable {
    /// Stores the photo and returns its key.
    func put(_ bytes: [UInt8]) async throws -> String
}

extension PhotoClaims {
    /// Stores the photo: its key, or the 503 `photo store unavailable` (logged with the request id).
    func claim(_ bytes: [UInt8], requestId: String, logger: Logger) async -> Result<String, HTTPResponse> {
        do {
            return .success(try await put(bytes))
        } catch {
            logger.warning("photo store failed", [LogKeys.requestId: .string(requestId), LogKeys.error: "\(error)"])
            return .failure(.error(.photoStoreUnavailable))
        }
    }
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
