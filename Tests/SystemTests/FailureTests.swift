import Contracts
import Foundation
import HTTPClient
import Kafka
import Runtime
import Synchronization
import TestSupport
import Testing

extension SystemTests {
    /// What happens when parts fail: a replica killed mid-flight, garbage on a command topic.
    @Suite struct FailureTests {
        @Test func survivorServesAfterAReplicaIsKilled() async throws {
            let doomed = try await ServiceProcess.start("Identify")
            let survivor = try await ServiceProcess.start("Identify")
            let budget = 12.0
            let gateway = try await GatewayProcess.start(
                instance: "test-kill-\(UInt16.random(in: 0...9999))", extra: ["IDENTIFY_BUDGET_MS": "12000"])
            defer {
                [doomed, survivor].forEach { $0.kill() }
                gateway.process.kill()
            }

            struct Outcome: Sendable {
                let startedAt: Double
                let seconds: Double
                let status: Int
            }
            let start = ContinuousClock.now
            let killAt = 2.0
            let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
                group.addTask {
                    try await Task.sleep(for: .seconds(killAt))
                    doomed.kill(signal: SIGKILL)
                    return []
                }
                for worker in 0..<8 {
                    group.addTask {
                        var mine: [Outcome] = []
                        while (ContinuousClock.now - start) < .seconds(22) {
                            let sent = ContinuousClock.now
                            let response = try await SystemClient.identify(
                                gateway, hint: "Starbucks", device: "kill-\(worker)")
                            mine.append(
                                Outcome(
                                    startedAt: (sent - start).inSeconds,
                                    seconds: (ContinuousClock.now - sent).inSeconds,
                                    status: response.status))
                            try await Task.sleep(for: .milliseconds(100))
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(outcomes.count > 50)
            for outcome in outcomes {
                // Answered (possibly by the survivor after redelivery) or a prompt 503/504 — never a hang.
                #expect([200, 503, 504].contains(outcome.status))
                #expect(outcome.seconds < budget + 2)
            }
            // After the rebalance (the dead member leaves the group within the session timeout) everything succeeds.
            let late = outcomes.filter { $0.startedAt > killAt + 10 }
            #expect(!late.isEmpty)
            #expect(late.allSatisfy { $0.status == 200 })
            #expect(outcomes.filter { $0.startedAt + $0.seconds < killAt }.allSatisfy { $0.status == 200 })
        }

        @Test func garbageLandsInTheDeadLetterTopicAndTheServiceKeepsServing() async throws {
            let identify = try await ServiceProcess.start("Identify")
            let gateway = try await GatewayProcess.start(instance: "test-dlq-\(UInt16.random(in: 0...9999))")
            defer {
                identify.kill()
                gateway.process.kill()
            }

            let logger = Logger(label: "dlq-test", sink: .memory())
            let kafka = KafkaConfiguration.fromEnvironment(Environment())
            let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
            let marker = "garbage-\(UUID().uuidString)"
            let garbage: [UInt8] = [0xFF, 0x00, 0xFE] + Array(marker.utf8) + [0x01, 0x02]
            _ = try await producer.send(
                topic: ServiceName.identify.commandTopic, key: Array("garbage".utf8), value: garbage, headers: [])

            let found = Mutex<[KafkaMessage]>([])
            let consumer = try KafkaGroupConsumer.make(
                configuration: kafka, groupId: "dlq-reader-\(UUID().uuidString)", topics: [Topics.deadLetter],
                logger: logger)
            consumer.setHandler(maxInFlight: 16) { message in
                if message.value == garbage { found.withLock { $0.append(message) } }
            }
            let reading = Task { try await consumer.run() }
            let deadline = ContinuousClock.now + .seconds(20)
            while found.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            await consumer.shutdown()
            _ = await reading.result
            let dead = try #require(found.withLock { $0.first })
            #expect(dead.header(MessageHeaders.dlqTopic) == ServiceName.identify.commandTopic)
            #expect(dead.header(MessageHeaders.dlqError)?.isEmpty == false)
            #expect(dead.header(MessageHeaders.dlqOffset) != nil)

            let response = try await SystemClient.identify(gateway, hint: "Costco")
            #expect(response.status == 200)
        }
    }
}
