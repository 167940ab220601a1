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

    func replay(_ command: ReplayFindsCommand) async throws -> Reply {
        let requestSHA = Digest.hex(Digest.sha256(Array(try JSONEncoder.sorted.encode(command.finds))))
        if let key = command.idempotencyKey, let stored = try await store.replay(userId: command.userId, key: key) {
            guard stored.requestSHA == requestSHA else {
                return .error(409, "Idempotency-Key was already used with a different body")
            }
            return Reply(status: 200, body: stored.response, headers: [("Idempotent-Replayed", "true")])
        }
        for input in command.finds {
            let (find, inserted) = try await store.record(userId: command.userId, input)
            if inserted { await publishRecorded(find, userId: command.userId) }
        }
        let body = Array(try JSONEncoder().encode(FindsResponse(finds: try await store.list(userId: command.userId, limit: 200))))
        if let key = command.idempotencyKey {
            try await store.rememberReplay(userId: command.userId, key: key, requestSHA: requestSHA, response: body)
        }
        return Reply(status: 200, body: body, headers: [])
    }

    /// Records the top investable of a signed-in identify (fire-and-forget from the identify path).
    func recordFromIdentify(userId: String, _ input: RecordFindInput) async {
        do {
            let (find, inserted) = try await store.record(userId: userId, input)
            if inserted { await publishRecorded(find, userId: userId) }
        } catch {
            context.logger.warning("recordFind failed", ["error": "\(error)"])
        }
    }

    private func publishRecorded(_ find: Find, userId: String) async {
        let tile = find.lat.flatMap { lat in find.lng.flatMap { Geohash.encode(lat: lat, lng: $0) } }
        await context.emit(
            type: FindRecordedEvent.type, schemaVersion: FindRecordedEvent.schemaVersion, key: userId,
            data: FindRecordedEvent(
                findId: find.id, userId: userId, brand: find.brand, ticker: find.ticker, comparable: find.comparable,
                isPublic: find.isPublic, geohash6: tile, createdAt: find.createdAt))
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
