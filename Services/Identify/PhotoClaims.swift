import Contracts
import Redis
import Runtime

/// Reads and deletes claim-checked photos that the gateway stored in Redis.
struct PhotoClaims: Sendable {
    let redis: RedisClient

    /// The photo bytes, or nil when the claim expired or was flushed (or the key is not a photo key). Throws the
    /// Redis error when Redis stays unreachable for `patience` (or until the task's deadline, if sooner): a Redis
    /// that comes back after longer has most likely lost the photo anyway.
    func load(_ key: String, patience: Duration = .seconds(3)) async throws -> [UInt8]? {
        guard key.hasPrefix(IdentifyPhotoCommand.photoKeyPrefix) else { return nil }
        let deadline = min(TaskDeadline.current ?? .now + patience, .now + patience)
        return try await Retry.run(
            until: deadline, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)),
            shouldRetry: { ($0 as? RedisError)?.isRetriable ?? false }
        ) { try await redis.get(key) }
    }

    /// Best effort: an undeleted photo expires with its TTL.
    func delete(_ key: String) async {
        guard key.hasPrefix(IdentifyPhotoCommand.photoKeyPrefix) else { return }
        _ = try? await redis.delete(key)
    }
}
