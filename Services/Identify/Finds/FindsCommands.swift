import Contracts
import Crypto
import Finance
import Foundation
import Geo
import Messaging
import Runtime
import ServiceKit

/// The journal's commands: list, guest replay (identity-idempotent, and `Idempotency-Key`-idempotent), dex.
struct FindsCommands: Sendable {
    let store: FindsStore
    let context: ServiceContext

    func list(_ command: ListFindsCommand) async throws -> Reply {
        .json(200, FindsResponse(finds: try await store.list(userId: command.userId, limit: command.limit)))
    }

    /// Guest replay (`POST /v1/finds`). A still-failing database or broker throws, and the runner answers 503.
    func replay(_ command: ReplayFindsCommand, awardKey: String) async throws -> Reply {
        let requestSHA = Digest.hex(Digest.sha256(Array(try JSONEncoder.sorted.encode(command.finds))))
        let deadline = TaskDeadline.current ?? .now + .seconds(5)
        let userId = command.userId
        let outcome = try await store.replay(
            userId: userId, key: command.idempotencyKey, requestSHA: requestSHA, command.finds, awardKey: awardKey,
            announce: { find in try await publishRecorded(find, userId: userId, deadline: deadline) })
        switch outcome {
        case .answered(let body): return Reply(status: 200, body: body)
        case .replayed(let body): return Reply(status: 200, body: body, headers: [("Idempotent-Replayed", "true")])
        case .conflict: return .error(409, "Idempotency-Key was already used with a different body")
        }
    }

    /// Records the finds of a signed-in identify (after-reply work); throws when it did not finish by `deadline`.
    func record(userId: String, _ inputs: [RecordFindInput], awardKey: String, deadline: ContinuousClock.Instant)
        async throws
    {
        try await store.record(userId: userId, inputs, awardKey: awardKey) { find in
            try await publishRecorded(find, userId: userId, deadline: deadline)
        }
    }

    private func publishRecorded(_ find: Find, userId: String, deadline: ContinuousClock.Instant) async throws {
        let tile = find.lat.flatMap { lat in find.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } }
        try await context.emit(
            type: FindRecordedEvent.type, schemaVersion: FindRecordedEvent.schemaVersion, key: userId,
            data: FindRecordedEvent(
                findId: find.id, userId: userId, brand: find.brand, ticker: find.ticker, comparable: find.comparable,
                isPublic: find.isPublic, geohash6: tile, createdAt: find.createdAt, foundPrice: find.foundPrice),
            deadline: deadline)
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
