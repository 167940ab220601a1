import Contracts
import Foundation
import HTTPClient
import TestSupport
import Testing

/// Every system test runs serially: they share the identify consumer group and the gateway budgets.
@Suite(.serialized) struct SystemTests {}

/// End to end through real processes: HTTP → Gateway → Kafka → Identify → Kafka → Gateway → HTTP.
extension SystemTests {
    @Suite struct GatewayIdentifyTests {
        static let knownBrands: [(hint: String, ticker: String)] = [
            ("Starbucks", "SBUX"), ("McDonald's", "MCD"), ("Home Depot", "HD"), ("Target", "TGT"),
            ("Walmart", "WMT"), ("Chipotle", "CMG"), ("Nike", "NKE"), ("Costco", "COST"),
        ]

        func identify(_ gateway: GatewayProcess, hint: String?, device: String = "test-device") async throws
            -> HTTPClientResponse
        {
            try await SystemClient.identify(gateway, hint: hint, device: device)
        }

        static func ticker(of response: HTTPClientResponse) throws -> String? {
            let decoded = try JSONDecoder().decode(IdentifyResponse.self, from: Data(response.body))
            return decoded.investables.first?.brand.ticker?.symbol
        }

        @Test func everyReplyReachesTheGatewayThatAsked() async throws {
            let identifyA = try await ServiceProcess.start("Identify")
            let identifyB = try await ServiceProcess.start("Identify")
            let gatewayA = try await GatewayProcess.start(instance: "test-a-\(UInt16.random(in: 0...9999))")
            let gatewayB = try await GatewayProcess.start(instance: "test-b-\(UInt16.random(in: 0...9999))")
            defer {
                [identifyA, identifyB].forEach { $0.kill() }
                [gatewayA, gatewayB].forEach { $0.process.kill() }
            }

            let results = try await withThrowingTaskGroup(of: (expected: String, status: Int, got: String?).self) {
                group in
                for i in 0..<200 {
                    let (hint, ticker) = Self.knownBrands[i % Self.knownBrands.count]
                    let gateway = i % 2 == 0 ? gatewayA : gatewayB
                    group.addTask {
                        let response = try await identify(gateway, hint: hint, device: "device-\(i)")
                        return (ticker, response.status, response.status == 200 ? try Self.ticker(of: response) : nil)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 200)
            for result in results {
                #expect(result.status == 200)
                #expect(result.got == result.expected)
            }
        }

        @Test func identifyWithoutHintAnswersEmptyWithThePathTaken() async throws {
            let identifyService = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-empty-\(UInt16.random(in: 0...9999))")
            defer {
                identifyService.kill()
                gateway.process.kill()
            }
            let response = try await identify(gateway, hint: nil)
            #expect(response.status == 200)
            let decoded = try JSONDecoder().decode(IdentifyResponse.self, from: Data(response.body))
            #expect(decoded.investables.isEmpty)
            #expect(!decoded.identification.modelUsed.isEmpty)

            let seeded = try await identify(gateway, hint: "starbucks")
            let body = try JSONDecoder().decode(IdentifyResponse.self, from: Data(seeded.body))
            let investable = try #require(body.investables.first)
            #expect(investable.brand.isPublic)
            #expect(investable.sources.contains { $0.provider == .manual })
            #expect(investable.rarity == .common)
        }

        @Test func absentIdentifyServiceAnswersWithinTheBudget() async throws {
            let gateway = try await GatewayProcess.start(
                instance: "test-absent-\(UInt16.random(in: 0...9999))", extra: ["IDENTIFY_BUDGET_MS": "1500"])
            defer { gateway.process.kill() }
            // Any Identify replicas left by other tests are gone; nothing consumes within 1.5 s.
            let started = ContinuousClock.now
            let response = try await identify(gateway, hint: "Starbucks")
            let elapsed = ContinuousClock.now - started
            #expect(response.status == 504 || response.status == 503)
            #expect(elapsed < .seconds(4))
            let body = try JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
            #expect(!body.error.isEmpty)
        }
    }
}
