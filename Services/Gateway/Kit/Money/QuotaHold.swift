import HTTPServer
import MoneyCore
import Postgres
import Runtime

extension UserStore {
    /// Takes one generation of the identity's free tier when it has room: the new usage row's id, nil when spent.
    /// A transaction-level advisory lock per identity serializes the count and the insert, so concurrent requests
    /// on any number of replicas never spend past the limit.
    func holdUsage(userId: String?, deviceId: String?, kind: String, limit: Int) async throws -> Int64? {
        let identity = userId.map { "u:" + $0 } ?? "d:" + (deviceId ?? "")
        return try await db.transaction { connection -> Int64? in
            _ = try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("mapvest.quota." + identity), 0))")
            let counted =
                if let userId {
                    try await connection.query(
                        "SELECT count(*) AS n FROM gateway.usage_events WHERE kind = \(kind) AND user_id = \(userId)")
                } else {
                    try await connection.query(
                        """
                        SELECT count(*) AS n FROM gateway.usage_events
                        WHERE kind = \(kind) AND user_id IS NULL AND device_id = \(deviceId)
                        """)
                }
            guard (counted.first?.int("n") ?? 0) < limit else { return nil }
            return try await connection.query(
                """
                INSERT INTO gateway.usage_events (device_id, user_id, kind) VALUES (\(deviceId), \(userId), \(kind))
                RETURNING id
                """
            ).first?.int64("id")
        }
    }

    /// Counts a generation without a limit (unlimited callers); the usage row's id.
    func countUsage(userId: String?, deviceId: String?, kind: String) async throws -> Int64? {
        try await db.query(
            """
            INSERT INTO gateway.usage_events (device_id, user_id, kind) VALUES (\(deviceId), \(userId), \(kind))
            RETURNING id
            """
        ).first?.int64("id")
    }

    func releaseUsage(_ id: Int64) async throws {
        _ = try await db.execute("DELETE FROM gateway.usage_events WHERE id = \(id)")
    }
}

extension IdentifyGuards: IdentifyGate {
    func hold(userId: String?, deviceId: String?) async -> (usage: Int64?, reject: HTTPResponse?) {
        let users = self.users
        let limited = limitsEnabled
        do {
            return try await lookups.run { () async throws -> (usage: Int64?, reject: HTTPResponse?) in
                let state = try await users.entitlement(userId: userId, deviceId: deviceId)
                guard limited, !state.unlimited else {
                    return (try await users.countUsage(userId: userId, deviceId: deviceId, kind: "identify"), nil)
                }
                if let usage = try await users.holdUsage(
                    userId: userId, deviceId: deviceId, kind: "identify", limit: EntitlementState.freeLimit)
                {
                    return (usage, nil)
                }
                return (nil, Self.quotaExceeded(remaining: 0))
            }
        } catch {
            logger.warning("quota store unavailable; failing open", [LogKeys.error: .string("\(error)")])
            return (nil, nil)
        }
    }

    func release(_ usage: Int64) async {
        do {
            try await users.releaseUsage(usage)
        } catch {
            logger.warning("usage not given back", [LogKeys.error: .string("\(error)")])
        }
    }
}
