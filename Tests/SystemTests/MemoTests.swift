import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Kafka
import Postgres
import Runtime
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `POST /v1/memo` and `GET /v1/memo/sec/:ticker` through a real Gateway and Briefs, with SEC EDGAR and
    /// OpenRouter faked on loopback in their wire formats.
    @Suite struct MemoTests {
        static let memoText = String(
            repeating: "Apple sells phones and services; the evidence is thin but steady. ", count: 3)

        /// EDGAR: AAPL is CIK 320193 with a 10-K, a Form 4 (not listed) and a 10-Q; every other ticker is unknown.
        static func edgar() throws -> FakeUpstream {
            try FakeUpstream { request in
                if request.path == "/files/company_tickers.json" {
                    return .json(
                        200,
                        raw: Array(
                            #"{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},"1":{"cik_str":789019,"ticker":"MSFT","title":"MICROSOFT CORP"}}"#
                                .utf8))
                }
                if request.path == "/submissions/CIK0000320193.json" {
                    return .json(
                        200,
                        raw: Array(
                            """
                            {"cik":"320193","name":"Apple Inc.","filings":{"recent":{\
                            "accessionNumber":["0000320193-26-000010","0000320193-26-000009","0000320193-26-000008"],\
                            "filingDate":["2026-11-01","2026-10-30","2026-08-01"],"form":["10-K","4","10-Q"],\
                            "primaryDocument":["aapl-20260927.htm","form4.xml","aapl-20260628.htm"]}}}
                            """.utf8))
                }
                return .json(404, raw: Array("{}".utf8))
            }
        }

        static func pool() async throws -> PostgresPool {
            try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 1, logger: Logger(label: "t", level: .error))
        }

        static func storedMemos(_ pool: PostgresPool, _ userId: String) async throws -> Int {
            try await pool.query("SELECT count(*) AS n FROM briefs.ticker_memos WHERE user_id = \(userId)").first?.int(
                "n") ?? -1
        }

        @Test func withoutAModelKeyA503AndNothingStored() async throws {
            let edgar = try Self.edgar()
            let (massive, openRouter, jev, base) = try BriefsFakes.upstreams(BriefsFakes.Knobs())
            var env = base
            env["OPENROUTER_API_KEY"] = ""
            env["SEC_BASE_URL"] = edgar.baseURL
            env["SEC_DATA_BASE_URL"] = edgar.baseURL
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-memo-nokey-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)

            for bad in ["{}", "nope", #"{"ticker":"1X"}"#, #"{"ticker":"TOOLONGTICKER"}"#] {
                let response = try await SystemClient.send(gateway, "POST", "/v1/memo", json: bad, headers: auth)
                #expect(response.status == 400 && SystemClient.errorMessage(response) == "ticker required", "\(bad)")
            }
            let refused = try await SystemClient.send(
                gateway, "POST", "/v1/memo", json: #"{"ticker":"aapl"}"#, headers: auth)
            #expect(refused.status == 503)
            #expect(SystemClient.errorMessage(refused) == "memo unavailable: OPENROUTER_API_KEY is not set")
            let pool = try await Self.pool()
            #expect(try await Self.storedMemos(pool, userId) == 0)
            #expect(openRouter.requests.isEmpty)

            // The filings route needs no model.
            let sec = try await SystemClient.send(gateway, "GET", "/v1/memo/sec/aapl")
            #expect(sec.status == 200)
            let filings = try JSONDecoder().decode(SECFilingsResponse.self, from: Data(sec.body))
            #expect(filings.cik == "0000320193" && filings.name == "Apple Inc." && filings.ticker == "AAPL")
            #expect(filings.filings.map(\.form) == ["10-K", "10-Q"])
            #expect(
                filings.filings.first?.url
                    == "\(edgar.baseURL)/Archives/edgar/data/320193/000032019326000010/aapl-20260927.htm")
            #expect(
                !edgar.requests.isEmpty && edgar.requests.allSatisfy { ($0.headers["User-Agent"] ?? "").contains("@") })
            let unknown = try await SystemClient.send(gateway, "GET", "/v1/memo/sec/ZZZZ")
            #expect(unknown.status == 404 && SystemClient.errorMessage(unknown) == "ticker not found at SEC EDGAR")
            #expect(try await SystemClient.send(gateway, "GET", "/v1/memo/sec/%00X").status == 400)
            await pool.close()
            for fake in [edgar, massive, openRouter, jev] { await fake.shutdown() }
        }

        @Test func aWrittenMemoIsStoredForItsOwnerAndPushed() async throws {
            let edgar = try Self.edgar()
            let (massive, unused, jev, base) = try BriefsFakes.upstreams(BriefsFakes.Knobs())
            let model = try FakeUpstream { _ in
                let content = "{\"memo\":\"\(Self.memoText)\"}"
                let body = try? JSONSerialization.data(withJSONObject: [
                    "choices": [["message": ["role": "assistant", "content": content]]],
                    "usage": ["prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20],
                ])
                return .json(200, raw: Array(body ?? Data()))
            }
            var env = base
            env["OPENROUTER_BASE_URL"] = model.baseURL
            env["SEC_BASE_URL"] = edgar.baseURL
            env["SEC_DATA_BASE_URL"] = edgar.baseURL
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-memo-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            let (_, otherId) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            let pushes = try BriefsFakes.PushCollector { $0 == userId || $0 == otherId }

            let written = try await SystemClient.send(
                gateway, "POST", "/v1/memo", json: #"{"ticker":"AAPL"}"#, headers: auth)
            #expect(written.status == 200)
            let memo = try JSONDecoder().decode(TickerMemoResponse.self, from: Data(written.body))
            #expect(memo.ticker == "AAPL" && memo.memo == Self.memoText.trimmingCharacters(in: .whitespaces))
            #expect(memo.provider == "openai/gpt-5.6-terra")
            #expect(
                memo.sources.first?.title == "10-K filed 2026-11-01"
                    && memo.sources.contains { $0.title == "AAPL material contract win" })
            // The model saw the facts it was given.
            #expect(model.requests.first?.bodyText.contains("10-K on 2026-11-01") == true)

            // An anonymous memo is answered but neither stored nor pushed.
            #expect(try await SystemClient.send(gateway, "POST", "/v1/memo", json: #"{"ticker":"MSFT"}"#).status == 200)

            let deadline = ContinuousClock.now + .seconds(30)
            while pushes.all.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
            try await Task.sleep(for: .seconds(2))
            let sent = pushes.all
            #expect(sent.count == 1)
            #expect(sent.first?.userIds == [userId] && sent.first?.title == "Your $AAPL brief is ready")
            #expect(sent.first?.eventKey == .memoFinished && sent.first?.dedupe.first?.slot == "memo_finished")
            let pool = try await Self.pool()
            #expect(try await Self.storedMemos(pool, userId) == 1)
            #expect(try await Self.storedMemos(pool, otherId) == 0)
            await pushes.stop()
            await pool.close()
            for fake in [edgar, massive, model, unused, jev] { await fake.shutdown() }
        }
    }
}
