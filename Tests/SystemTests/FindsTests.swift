import Contracts
import Foundation
import HTTPClient
import TestSupport
import Testing

extension SystemTests {
    /// The finds journal through the whole system: a signed-in identify records its top find; guest replay is
    /// identity-idempotent and `Idempotency-Key`-idempotent under concurrent retries; the dex is derived on read.
    @Suite struct FindsTests {
        /// Signs in `email` (default: a fresh address) and returns the session token; `headers` go on both calls.
        static func signIn(_ gateway: GatewayProcess, email: String? = nil, headers: [(String, String)] = [])
            async throws -> String
        {
            try await SystemClient.signIn(gateway, email: email, headers: headers).token
        }

        @Test func signedInIdentifyRecordsAFindAndReplayIsIdempotent() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-finds-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }
            let token = try await Self.signIn(gateway)
            let auth = [("Authorization", "Bearer \(token)")]

            #expect(try await SystemClient.send(gateway, "GET", "/v1/finds").status == 401)

            let identified = try await SystemClient.identify(gateway, hint: "Chipotle", device: nil, headers: auth)
            #expect(identified.status == 200)
            var finds: [Find] = []
            for _ in 0..<50 {
                let listed = try await SystemClient.send(gateway, "GET", "/v1/finds", headers: auth)
                finds = try JSONDecoder().decode(FindsResponse.self, from: Data(listed.body)).finds
                if !finds.isEmpty { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(finds.map(\.ticker) == ["CMG"])
            #expect(finds.first?.rarity == .common)

            // Guest replay: same journal posted concurrently with one Idempotency-Key → one answer, no duplicates.
            let journal = """
                {"finds":[{"brand":"Starbucks","ticker":"sbux","isPublic":true,"confidence":"high","lat":40.758,"lng":-73.9855,"createdAt":"2026-01-02T03:04:05.000Z"},
                {"brand":"Local Bakery","isPublic":false,"comparable":"QSR","confidence":"low"},
                {"brand":"Chipotle Mexican Grill","ticker":"CMG","isPublic":true,"confidence":"high"}]}
                """
            let key = [("Idempotency-Key", "replay-\(UUID().uuidString)")]
            let bodies = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let r = try await SystemClient.send(
                            gateway, "POST", "/v1/finds", json: journal, headers: auth + key)
                        return (r.status, r.body)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.allSatisfy { $0.0 == 200 })
            let replayed = try JSONDecoder().decode(FindsResponse.self, from: Data(bodies[0].1))
            #expect(replayed.count == 3)
            #expect(Set(replayed.finds.map { $0.ticker ?? $0.comparable ?? $0.brand }) == ["SBUX", "CMG", "QSR"])
            let starbucks = try #require(replayed.finds.first { $0.ticker?.uppercased() == "SBUX" })
            #expect(starbucks.createdAt == "2026-01-02T03:04:05.000Z")
            #expect(replayed.finds.first { $0.comparable == "QSR" }?.rarity == .rare)

            let reused = try await SystemClient.send(
                gateway, "POST", "/v1/finds", json: #"{"finds":[{"brand":"Other","confidence":"low"}]}"#,
                headers: auth + key)
            #expect(reused.status == 409)

            let invalid = try await SystemClient.send(
                gateway, "POST", "/v1/finds", json: #"{"finds":[]}"#, headers: auth)
            #expect(invalid.status == 400)

            let dex = try await SystemClient.send(gateway, "GET", "/v1/dex", headers: auth)
            let decoded = try JSONDecoder().decode(DexResponse.self, from: Data(dex.body))
            #expect(decoded.totalFinds == 3)
            #expect(decoded.tilesVisited == 1)
            #expect(decoded.rarityCounts.common == 2)
            #expect(decoded.rarityCounts.rare == 1)
            #expect(decoded.sectors.contains { $0.found >= 1 })
        }
    }
}
