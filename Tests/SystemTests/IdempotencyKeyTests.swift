import Contracts
import Foundation
import HTTPClient
import TestSupport
import Testing

extension SystemTests {
    /// `POST /v1/finds` with an `Idempotency-Key`: one key, one body, one stored answer, byte for byte — decided
    /// atomically even when two bodies race for the same key.
    @Suite struct IdempotencyKeyTests {
        @Test func racingBodiesForOneKeyGetOneAnswerAndReplaysAreByteIdentical() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-idem-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let token = try await FindsTests.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]
            try await SystemClient.waitForIdentify(gateway, auth: auth)
            let brands = FaultTrialTests.distinctBrands()

            for trial in 0..<10 {
                let key = [("Idempotency-Key", "race-\(trial)-\(UUID().uuidString)")]
                let bodies = [brands[2 * trial], brands[2 * trial + 1]].map {
                    #"{"finds":[{"brand":"\#($0)","isPublic":false,"confidence":"high"}]}"#
                }
                let answers = try await withThrowingTaskGroup(of: (Int, HTTPClientResponse).self) { group in
                    for (index, body) in bodies.enumerated() {
                        group.addTask {
                            (
                                index,
                                try await SystemClient.send(
                                    gateway, "POST", "/v1/finds", json: body, headers: auth + key)
                            )
                        }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                let statuses = bodies.indices.map { answers[$0]?.status ?? 0 }
                #expect(statuses.sorted() == [200, 409], "trial \(trial): \(statuses)")
                guard let winner = statuses.firstIndex(of: 200), let first = answers[winner] else { continue }
                let loserBrand = brands[2 * trial + (1 - winner)]
                let journal = try JSONDecoder().decode(FindsResponse.self, from: Data(first.body))
                #expect(journal.finds.contains { $0.brand == brands[2 * trial + winner] })
                #expect(!journal.finds.contains { $0.brand == loserBrand }, "trial \(trial): both bodies recorded")

                // A replay of the winning body is the first answer, byte for byte; the other body stays a 409.
                let replay = try await SystemClient.send(
                    gateway, "POST", "/v1/finds", json: bodies[winner], headers: auth + key)
                #expect(replay.status == 200)
                #expect(replay.body == first.body, "trial \(trial): replay differs from the first answer")
                let other = try await SystemClient.send(
                    gateway, "POST", "/v1/finds", json: bodies[1 - winner], headers: auth + key)
                #expect(other.status == 409)
            }
            let listed = try await SystemClient.send(gateway, "GET", "/v1/finds?limit=200", headers: auth)
            let finds = try JSONDecoder().decode(FindsResponse.self, from: Data(listed.body)).finds
            #expect(finds.count == 10)
        }
    }
}
