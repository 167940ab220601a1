import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Prism builds as durable jobs, through the gateway, two Research replicas and a loopback Underlying engine:
    /// concurrent cold builds of one ticker make one engine build, one packet and one `memo_finished`; a replica killed
    /// mid-build leaves the build to another, which restarts it once — still one packet and one push.
    @Suite struct PacketBuildTests {
        /// How long the engine takes per ticker's n-th build request.
        final class Engine: Sendable {
            private let delays = Mutex<[String: [Double]]>([:])
            func set(_ ticker: String, _ seconds: [Double]) { delays.withLock { $0[ticker] = seconds } }
            func next(_ ticker: String) -> Double {
                delays.withLock { $0[ticker]?.isEmpty == false ? $0[ticker]!.removeFirst() : 0.2 }
            }
        }

        static func packet(_ ticker: String) -> String {
            #"{"ticker":"\#(ticker)","as_of":"2026-12-03","generated_at":"2026-12-03T12:00:00Z","engine_version":"test","memo":{"recommendation":{"action":"buy","strength":"normal","conviction":0.6,"one_line":"Steady franchise."}},"scenarios":{"cases":{"bull":{"probability":0.3,"narrative":"More stores.","horizons":{}}}}}"#
        }

        static func underlying(_ engine: Engine) throws -> FakeUpstream {
            try FakeUpstream { request in
                guard request.method == "POST", request.path == "/api/prism" else { return .error(404, "no") }
                let ticker = (SystemClient.jsonObject(request.body)["ticker"] as? String) ?? "?"
                try? await Task.sleep(for: .seconds(engine.next(ticker)))
                return .json(200, raw: Array(Self.packet(ticker).utf8))
            }
        }

        static func research(_ underlying: FakeUpstream) async throws -> ServiceProcess {
            try await ServiceProcess.start(
                "Research",
                extra: [
                    "UNDERLYING_URL": underlying.baseURL, "PACKET_WORKER_INTERVAL_MS": "100", "PACKET_LEASE_MS": "1500",
                ])
        }

        static func poll(_ gateway: GatewayProcess, _ path: String) async throws -> HTTPClientResponse {
            let deadline = ContinuousClock.now + .seconds(40)
            var last = try await SystemClient.send(gateway, "GET", path)
            while last.status != 200 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                last = try await SystemClient.send(gateway, "GET", path)
            }
            return last
        }

        @Test func concurrentBuildsAndAKilledReplica() async throws {
            let engine = Engine()
            let underlying = try Self.underlying(engine)
            var first = try await Self.research(underlying)
            let second = try await Self.research(underlying)
            let gateway = try await GatewayProcess.start(instance: "test-packets-\(UInt16.random(in: 0...9999))")
            defer {
                first.kill()
                second.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            let pushes = try BriefsFakes.PushCollector { $0 == userId }
            let root = try await SystemClient.send(gateway, "GET", "/v1/ubermemo")
            #expect(SystemClient.json(root)["name"] as? String == "Prism")
            #expect(try await SystemClient.send(gateway, "POST", "/v1/prism", json: "{}", headers: auth).status == 400)

            // Not built yet: the 404 names the way to build it (the first command may wait for the group to settle).
            var missing = try await SystemClient.send(gateway, "GET", "/v1/prism/MCD")
            for _ in 0..<40 where missing.status != 404 {
                missing = try await SystemClient.send(gateway, "GET", "/v1/prism/MCD")
            }
            #expect(missing.status == 404)
            #expect(SystemClient.json(missing)["code"] as? String == "prism_packet_not_found")

            // Two concurrent cold builds: both 202 at once, one engine build, one packet, one push.
            engine.set("MCD", [1.5])
            let started = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        try await SystemClient.send(
                            gateway, "POST", "/v1/prism", json: #"{"ticker":"mcd"}"#, headers: auth
                        )
                        .status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(started == [202, 202])
            let built = try await Self.poll(gateway, "/v1/prism/MCD")
            #expect(built.status == 200)
            #expect(SystemClient.json(built)["ticker"] as? String == "MCD")
            #expect(underlying.requests.filter { $0.path == "/api/prism" }.count == 1)
            let cached = try await SystemClient.send(
                gateway, "POST", "/v1/prism", json: #"{"ticker":"MCD"}"#, headers: auth)
            #expect(cached.status == 200)
            #expect(underlying.requests.filter { $0.path == "/api/prism" }.count == 1)

            // Exports: text, the packet as JSON, a PDF.
            let text = try await SystemClient.send(gateway, "GET", "/v1/prism/MCD/export")
            #expect(text.headers["Content-Type"] == "text/plain; charset=utf-8")
            #expect(SystemClient.text(text).contains("one_line: Steady franchise."))
            let json = try await SystemClient.send(gateway, "GET", "/v1/ubermemo/mcd/export?format=JSON")
            #expect(SystemClient.json(json)["engine_version"] as? String == "test")
            let pdf = try await SystemClient.send(gateway, "GET", "/v1/prism/MCD/export?format=pdf")
            #expect(pdf.body.starts(with: Array("%PDF-".utf8)))
            #expect(try await SystemClient.send(gateway, "GET", "/v1/prism/MCD/export?format=doc").status == 400)

            // A replica dies mid-build: the other restarts it once; still one packet and one push.
            second.kill()
            engine.set("KO", [30, 0.3])
            #expect(
                try await SystemClient.send(gateway, "POST", "/v1/prism", json: #"{"ticker":"KO"}"#, headers: auth)
                    .status
                    == 202)
            let deadline = ContinuousClock.now + .seconds(20)
            while underlying.requests.filter({ SystemClient.jsonObject($0.body)["ticker"] as? String == "KO" }).isEmpty,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(100))
            }
            first.kill(signal: SIGKILL)
            first = try await Self.research(underlying)
            let resumed = try await Self.poll(gateway, "/v1/prism/KO")
            #expect(resumed.status == 200)
            #expect(
                underlying.requests.filter { SystemClient.jsonObject($0.body)["ticker"] as? String == "KO" }.count == 2)

            try await Task.sleep(for: .seconds(2))
            let finished = pushes.all.filter { $0.eventKind == "memo_finished" }
            #expect(finished.filter { $0.data["ticker"] == .string("MCD") }.count == 1)
            #expect(finished.filter { $0.data["ticker"] == .string("KO") }.count == 1)
            await pushes.stop()
            await underlying.shutdown()
        }
    }
}
