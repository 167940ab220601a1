import Foundation
import HTTPClient
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// A broker that is up at the TCP level but answers nothing (SIGSTOP): the gateway must notice, refuse new
    /// requests at once and be not-ready, let the requests already sent finish when the broker resumes, recover by
    /// itself, and stop promptly while it is frozen.
    @Suite struct BrokerFreezeTests {
        static let comparable = #"{"brand":"Starbucks"}"#

        @Test func frozenBrokerAnswers503AtOnceAndRecovers() async throws {
            let broker = try await DevBrokerProcess.start()
            defer { broker.stop() }
            let kafka = ["KAFKA_BROKERS": broker.bootstrapServers]
            let identify = try await ServiceProcess.start("Identify", extra: kafka)
            let gateway = try await GatewayProcess.start(
                instance: "test-freeze-\(UInt16.random(in: 0...9999))", extra: kafka)
            defer {
                identify.kill(signal: SIGKILL)
                gateway.process.kill(signal: SIGKILL)
            }
            try await Self.waitFor200(gateway, within: .seconds(30))

            broker.freeze()
            let frozenAt = ContinuousClock.now
            // A request every 100 ms for 3 s of freeze. Those sent once the gateway has noticed are refused at once
            // (503, nothing enqueued); those whose command was already handed to the broker wait for their reply,
            // which comes when it resumes (within their 5 s budget): never a 503 for a command that may be done.
            let answers = try await withThrowingTaskGroup(of: (sent: Double, status: Int, seconds: Double).self) {
                group in
                for index in 0..<30 {
                    try await Task.sleep(until: frozenAt + .milliseconds(100 * index))
                    group.addTask {
                        let sent = ContinuousClock.now
                        let response = try await SystemClient.send(
                            gateway, "POST", "/v1/resolve-comparable", json: Self.comparable)
                        if response.status == 503 { #expect(response.headers["Retry-After"] != nil) }
                        return ((sent - frozenAt).inSeconds, response.status, (ContinuousClock.now - sent).inSeconds)
                    }
                }
                let ready = try await testHTTPClient.execute(HTTPClientRequest(url: gateway.baseURL + "/readyz"))
                #expect(ready.status == 503)
                broker.resume()
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let late = answers.filter { $0.sent >= 1.5 }
            #expect(late.count >= 10)
            for answer in late {
                #expect(answer.status == 503, "sent \(answer.sent) s into the freeze")
                #expect(answer.seconds < 0.5, "a request waited \(answer.seconds) s with the broker frozen")
            }
            #expect(answers.allSatisfy { [200, 503].contains($0.status) }, "\(answers.map(\.status))")

            try await Self.waitFor200(gateway, within: .seconds(15))
            let readyAgain = try await testHTTPClient.execute(HTTPClientRequest(url: gateway.baseURL + "/readyz"))
            #expect(readyAgain.status == 200)

            // SIGTERM while the broker is frozen: bounded, not the 10 s producer flush.
            broker.freeze()
            try await Task.sleep(for: .seconds(1.5))
            let stopping = ContinuousClock.now
            let status = await gateway.process.stop()
            let stopSeconds = (ContinuousClock.now - stopping).inSeconds
            #expect(status == 0)
            #expect(stopSeconds < 4, "the gateway took \(stopSeconds) s to stop with the broker frozen")
            broker.resume()
        }

        static func waitFor200(_ gateway: GatewayProcess, within timeout: Duration) async throws {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let response = try await SystemClient.send(gateway, "POST", "/v1/resolve-comparable", json: comparable)
                if response.status == 200 { return }
                try await Task.sleep(for: .milliseconds(200))
            }
            throw Failure("no 200 from resolve-comparable within \(timeout)")
        }
    }
}
