import Foundation
import HTTPClient
import Runtime
import TestSupport
import Testing

extension SystemTests {
    /// A broker that is up at the TCP level but answers nothing (SIGSTOP): the gateway must notice, refuse at
    /// once and be not-ready, recover by itself when the broker resumes, and stop promptly while it is frozen.
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
            // Requests right after the freeze: each answered 503 within about a second, none waits out its budget.
            var answers: [(status: Int, seconds: Double)] = []
            while ContinuousClock.now - frozenAt < .seconds(3) {
                let sent = ContinuousClock.now
                let response = try await SystemClient.send(
                    gateway, "POST", "/v1/resolve-comparable", json: Self.comparable)
                answers.append((response.status, (ContinuousClock.now - sent).inSeconds))
                if response.status == 503 { #expect(response.headers["Retry-After"] != nil) }
            }
            #expect(answers.count >= 3)
            for answer in answers {
                #expect(answer.status == 503)
                #expect(answer.seconds < 1.5, "a request waited \(answer.seconds) s with the broker frozen")
            }
            let ready = try await testHTTPClient.execute(HTTPClientRequest(url: gateway.baseURL + "/readyz"))
            #expect(ready.status == 503)

            broker.resume()
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
