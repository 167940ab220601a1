import Contracts
import Foundation
import HTTPClient
import Kafka
import Redis
import Runtime
import Synchronization
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// Mapvest Daily through Gateway → Kafka → two Briefs replicas: the canned empty brief, one generation per
    /// user + day + tickers shared by the replicas, the outage brief, exactly one `daily_brief` push for the default
    /// list and none for another list, and the Jev pre-filter's reuse (no push).
    @Suite struct DailyBriefTests {
        static func brief(_ gateway: GatewayProcess, _ auth: [(String, String)], list: String? = nil) async throws
            -> (status: Int, brief: DailyBrief, keys: Set<String>)
        {
            let response = try await SystemClient.send(
                gateway, "GET", "/v1/watchlist/brief" + (list.map { "?listId=\($0)" } ?? ""), headers: auth)
            let brief = try JSONDecoder().decode(DailyBrief.self, from: Data(response.body))
            return (response.status, brief, Set(SystemClient.json(response).keys))
        }

        @Test func cachedSharedOutageAndOnePushForTheDefaultList() async throws {
            let knobs = BriefsFakes.Knobs()
            let (massive, openRouter, jev, env) = try BriefsFakes.upstreams(knobs)
            let first = try await ServiceProcess.start("Briefs", extra: env)
            let second = try await ServiceProcess.start("Briefs", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-brief-\(UInt16.random(in: 0...9999))")
            defer {
                first.kill()
                second.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            let pushes = try BriefsFakes.PushCollector { $0 == userId }
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)

            // Empty list: the canned brief, no model call.
            let empty = try await Self.brief(gateway, auth)
            #expect(empty.status == 200 && empty.brief.headline == "Nothing on your watchlist yet.")
            #expect(empty.keys == ["headline", "body", "generatedAt"] && openRouter.requests.isEmpty)

            for ticker in ["AAPL", "MSFT"] {
                _ = try await SystemClient.send(
                    gateway, "POST", "/v1/watchlist/add", json: "{\"ticker\":\"\(ticker)\"}", headers: auth)
            }
            let other = try JSONDecoder().decode(
                WatchListResponse.self,
                from: Data(
                    try await SystemClient.send(
                        gateway, "POST", "/v1/watchlist/lists", json: #"{"name":"Other"}"#, headers: auth
                    ).body)
            ).list
            _ = try await SystemClient.send(
                gateway, "POST", "/v1/watchlist/add", json: #"{"ticker":"AMZN","listId":"\#(other.id)"}"#, headers: auth
            )

            // Written once, markdown stripped, no model named; the prompt carried quotes and headlines.
            let written = try await Self.brief(gateway, auth)
            #expect(written.status == 200 && written.keys == ["headline", "body", "generatedAt"])
            #expect(
                written.brief.headline == "Tape drifts higher"
                    && written.brief.body == "$AAPL edged up while the rest of the list held steady.")
            #expect(openRouter.requests.count == 1)
            let prompt = try #require(openRouter.requests.first?.bodyText)
            #expect(prompt.contains("$AAPL $100.00 +1.01%") && prompt.contains("AAPL material contract win"))
            #expect(prompt.contains("gpt-5.6-terra") && prompt.contains("\"temperature\":0.4"))

            // The second ask is the cache, whichever replica answers; with the first replica gone, still the cache.
            #expect(try await Self.brief(gateway, auth).brief == written.brief)
            _ = await first.stop()
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            #expect(try await Self.brief(gateway, auth).brief == written.brief)
            #expect(openRouter.requests.count == 1)

            // Another list writes its own brief and never pushes.
            let otherBrief = try await Self.brief(gateway, auth, list: other.id)
            #expect(
                otherBrief.status == 200 && otherBrief.brief.headline == "Tape drifts higher"
                    && openRouter.requests.count == 2)

            // Every model failing: the outage brief, 200, not cached and no push.
            knobs.modelFails.withLock { $0 = true }
            _ = try await SystemClient.send(
                gateway, "POST", "/v1/watchlist/add", json: #"{"ticker":"TSLA","listId":"\#(other.id)"}"#, headers: auth
            )
            let outage = try await Self.brief(gateway, auth, list: other.id)
            #expect(
                outage.status == 200 && outage.brief.headline == "Daily briefing offline."
                    && outage.keys == ["headline", "body", "generatedAt"])
            #expect(openRouter.requests.count == 5)
            knobs.modelFails.withLock { $0 = false }
            #expect(try await Self.brief(gateway, auth, list: other.id).brief.headline == "Tape drifts higher")

            // Exactly one daily_brief push: for the default list's fresh brief.
            try await Task.sleep(for: .seconds(2))
            let sent = pushes.all
            #expect(sent.count == 1)
            let push = try #require(sent.first)
            let day = String(written.brief.generatedAt.prefix(10)).filter(\.isNumber)
            #expect(
                push.title == "Your morning read" && push.body == "Tape drifts higher" && push.eventKey == .dailyBrief)
            #expect(push.dedupe == [PushDedupe(slot: "daily_brief", key: day)] && push.target.type == "home")

            // The pre-filter: a new day (the day's cache entry gone) whose headlines carry nothing new keeps the
            // previous brief with a new time, without a model call or a push.
            let redis = try await RedisClient.make(
                url: try TestEnvironment.require("REDIS_URL"), size: 1, logger: Logger(label: "t", level: .error))
            _ = try await redis.delete("mapvest:brief:v1:\(userId)::\(day)::AAPL,MSFT")
            knobs.prefilterNoul.withLock { $0 = 0.1 }
            let calls = openRouter.requests.count
            let reused = try await Self.brief(gateway, auth)
            #expect(
                reused.brief.headline == written.brief.headline && reused.brief.generatedAt != written.brief.generatedAt
            )
            #expect(openRouter.requests.count == calls)
            #expect(jev.requests.contains { $0.bodyText.contains("previousHeadline") })
            try await Task.sleep(for: .seconds(1))
            #expect(pushes.all.count == 1)

            await pushes.stop()
            await redis.close()
            for fake in [massive, openRouter, jev] { await fake.shutdown() }
        }
    }
}
