import Contracts
import Finance
import Foundation
import HTTPClient
import TestSupport
import Testing

extension SystemTests {
    /// A 503 is an honest "not done": the broker paused for 2 s (SIGSTOP, then SIGCONT) under a steady signed-in
    /// identify load, and every identify answered 503 must have recorded no find, while every 200's find exists.
    @Suite struct BrokerPauseTests {
        struct Answer: Sendable {
            let user: Int
            let brand: String
            let status: Int
            /// The ticker the answer named (200s only).
            let answered: String?
        }

        @Test func everyIdentifyAnswered503DuringABrokerPauseHadNoEffect() async throws {
            let broker = try await DevBrokerProcess.start()
            defer { broker.stop() }
            let kafka = ["KAFKA_BROKERS": broker.bootstrapServers]
            let identify = try await ServiceProcess.start("Identify", extra: kafka)
            let gateway = try await GatewayProcess.start(
                instance: "test-pause-\(UInt16.random(in: 0...9999))", extra: kafka)
            defer {
                identify.kill(signal: SIGKILL)
                gateway.process.kill(signal: SIGKILL)
            }
            let users = 4
            var auth: [[(String, String)]] = []
            for _ in 0..<users { auth.append([("Authorization", "Bearer \(try await FindsTests.signIn(gateway))")]) }
            try await SystemClient.waitForIdentify(gateway, auth: auth[0])
            let brands = FaultTrialTests.distinctBrands()
            let (pauseAt, resumeAt, endAt, interval) = (1.5, 3.5, 6.0, 0.06)
            try #require(brands.count > Int(endAt / interval) + 1)

            // Open loop: a new identify every 60 ms whatever the others do, so requests keep arriving while the
            // broker is paused (a closed loop would just wait).
            let start = ContinuousClock.now
            let answers = try await withThrowingTaskGroup(of: Answer?.self) { group in
                group.addTask {
                    try await Task.sleep(until: start + .seconds(pauseAt))
                    broker.freeze()
                    try await Task.sleep(until: start + .seconds(resumeAt))
                    broker.resume()
                    return nil
                }
                var index = 0
                while ContinuousClock.now - start < .seconds(endAt) {
                    let (user, brand, headers) = (index % users, brands[index], auth[index % users])
                    group.addTask {
                        let response = try await SystemClient.identify(
                            gateway, hint: brand, device: nil, headers: headers)
                        let ticker = (try? JSONDecoder().decode(IdentifyResponse.self, from: Data(response.body)))?
                            .investables.first?.brand.ticker?.symbol.uppercased()
                        return Answer(user: user, brand: brand, status: response.status, answered: ticker)
                    }
                    index += 1
                    try await Task.sleep(until: start + .seconds(interval * Double(index)))
                }
                return try await group.reduce(into: [Answer]()) { if let answer = $1 { $0.append(answer) } }
            }
            let byStatus = Dictionary(grouping: answers, by: \.status).mapValues(\.count)
            print("broker pause trial: \(answers.count) identifies, by status \(byStatus.sorted { $0.key < $1.key })")
            #expect(answers.allSatisfy { [200, 503, 504].contains($0.status) })
            // The trial did what it is for: requests arrived while the broker was unreachable and were refused.
            #expect(byStatus[503, default: 0] > 0)
            #expect(byStatus[200, default: 0] > 0)

            // Effects: each user's recorded finds, once the after-reply work has settled.
            var recorded: [Set<String>] = []
            let deadline = ContinuousClock.now + .seconds(30)
            repeat {
                recorded = []
                for user in 0..<users {
                    let listed = try await SystemClient.send(gateway, "GET", "/v1/finds?limit=200", headers: auth[user])
                    let finds = (try? JSONDecoder().decode(FindsResponse.self, from: Data(listed.body)).finds) ?? []
                    recorded.append(Set(finds.compactMap { $0.ticker?.uppercased() }))
                }
                let missing = answers.filter { $0.status == 200 && !recorded[$0.user].contains($0.answered ?? "") }
                if missing.isEmpty { break }
                try await Task.sleep(for: .milliseconds(500))
            } while ContinuousClock.now < deadline
            // Let any late effect land before judging the 503s.
            try await Task.sleep(for: .seconds(2))

            let seed = BrandSeed.shared.entries
            var phantom: [String] = []
            var lost: [String] = []
            for user in 0..<users {
                let listed = try await SystemClient.send(gateway, "GET", "/v1/finds?limit=200", headers: auth[user])
                let finds = (try? JSONDecoder().decode(FindsResponse.self, from: Data(listed.body)).finds) ?? []
                let tickers = Set(finds.compactMap { $0.ticker?.uppercased() })
                let mine = answers.filter { $0.user == user }
                // A find may come only from a 200 (its named ticker) or a 504 (unknown outcome); never from a 503.
                let allowed = Set(
                    mine.compactMap { answer -> String? in
                        switch answer.status {
                        case 200: answer.answered
                        case 504: seed[answer.brand]?.ticker.uppercased()
                        default: nil
                        }
                    })
                phantom += tickers.subtracting(allowed).sorted()
                phantom += mine.filter { $0.status == 503 }.compactMap { seed[$0.brand]?.ticker.uppercased() }
                    .filter { tickers.contains($0) }
                lost += mine.filter { $0.status == 200 }.compactMap(\.answered).filter { !tickers.contains($0) }
            }
            #expect(phantom.isEmpty, "finds recorded for identifies answered 503 (or never answered 200): \(phantom)")
            #expect(lost.isEmpty, "finds missing for identifies answered 200: \(lost)")
        }
    }
}
