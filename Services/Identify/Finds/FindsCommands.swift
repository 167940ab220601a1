import Contracts
import Crypto
import Finance
import Foundation
import Geo
import Messaging
import Postgres
import Runtime
import ServiceKit

/// The journal's commands: list, guest replay (identity-idempotent, and `Idempotency-Key`-idempotent), dex.
struct FindsCommands: Sendable {
    let store: FindsStore
    let context: ServiceContext
    /// Where `find.recorded` is staged with the find and relayed from after COMMIT.
    let outbox: Outbox

    func list(_ command: ListFindsCommand) async throws -> Reply {
        .json(200, FindsResponse(finds: try await store.list(userId: command.userId, limit: command.limit)))
    }

    /// Guest replay (`POST /v1/finds`). A still-failing database throws, and the runner answers 503. The finds' events
    /// are relayed after COMMIT for at most a second (then by the outbox relay), so a slow broker does not hold the
    /// answer.
    func replay(_ command: ReplayFindsCommand, awardKey: String) async throws -> Reply {
        let requestSHA = Digest.hex(Digest.sha256(Array(try JSONEncoder.sorted.encode(command.finds))))
        let deadline = TaskDeadline.current ?? .now + .seconds(5)
        let userId = command.userId
        let (outcome, staged) = try await store.replay(
            userId: userId, key: command.idempotencyKey, requestSHA: requestSHA, command.finds, awardKey: awardKey,
            announce: { find, connection in try await stageRecorded(find, userId: userId, on: connection) })
        await outbox.relay(staged, deadline: min(deadline, .now + .seconds(1)))
        switch outcome {
        case .answered(let body): return Reply(status: 200, body: body)
        case .replayed(let body): return Reply(status: 200, body: body, headers: [("Idempotent-Replayed", "true")])
        case .conflict: return .error(409, "Idempotency-Key was already used with a different body")
        }
    }

    /// Records the finds of a signed-in identify (after-reply work); throws when they were not stored by `deadline`.
    /// Their events are relayed after COMMIT (until `deadline`, then by the outbox relay).
    func record(userId: String, _ inputs: [RecordFindInput], awardKey: String, deadline: ContinuousClock.Instant)
        async throws
    {
        let staged = try await store.record(userId: userId, inputs, awardKey: awardKey) { find, connection in
            try await stageRecorded(find, userId: userId, on: connection)
        }
        await outbox.relay(staged, deadline: deadline)
    }

    /// Stages `find.recorded` for a new find in its recording transaction.
    private func stageRecorded(_ find: Find, userId: String, on connection: PostgresConnection) async throws
        -> OutboxEntry
    {
        let tile = find.lat.flatMap { lat in find.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } }
        let event = try context.event(
            type: FindRecordedEvent.type, schemaVersion: FindRecordedEvent.schemaVersion, key: userId,
            data: FindRecordedEvent(
                findId: find.id, userId: userId, brand: find.brand, ticker: find.ticker, comparable: find.comparable,
                isPublic: find.isPublic, geohash6: tile, createdAt: find.createdAt, foundPrice: find.foundPrice))
        try await outbox.stage(event, on: connection)
        return event
    }
}

extension JSONEncoder {
    /// Deterministic output, for hashing request bodies.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

extension FindsCommands {
    /// `GET /v1/dex`: derived on read from up to 200 journal rows; nothing stored.
    func dex(_ command: DexCommand) async throws -> Reply {
        let rows = try await store.rows(userId: command.userId, limit: 200)
        var counts = RarityCounts()
        var tickers: [String] = []
        var tiles = Set<String>()
        for (find, tile) in rows {
            switch find.rarity ?? .legendary {
            case .common: counts.common += 1
            case .uncommon: counts.uncommon += 1
            case .rare: counts.rare += 1
            case .legendary: counts.legendary += 1
            }
            if let effective = RarityClassifier.effectiveTicker(ticker: find.ticker, comparable: find.comparable) {
                tickers.append(effective)
            }
            if let tile { tiles.insert(tile) }
        }
        return .json(
            200,
            DexResponse(
                sectors: DexSectors.compute(effectiveTickers: tickers), tilesVisited: tiles.count,
                totalFinds: rows.count, rarityCounts: counts))
    }
}
