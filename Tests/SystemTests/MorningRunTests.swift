import Contracts
import Foundation
import HTTPClient
import Kafka
import Runtime
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// The 7 am command as an outside producer publishes it, twice, to two Briefs replicas: every user with
    /// default-list tickers gets one brief and at most one `daily_brief` push; a user without any is skipped.
    @Suite struct MorningRunTests {
        @Test func fiftyUsersTwoReplicasOneBriefAndOnePushEach() async throws {
            let knobs = BriefsFakes.Knobs()
            let (massive, openRouter, jev, env) = try BriefsFakes.upstreams(knobs)
            let first = try await ServiceProcess.start("Briefs", extra: env)
            // The second replica also runs the in-house scheduler (its movers slot is due at once).
            var scheduling = env
            scheduling["ENABLE_PUSH_SCHEDULER"] = "1"
            scheduling["SCHEDULER_TIME_ZONE"] = "America/New_York"
            let second = try await ServiceProcess.start("Briefs", extra: scheduling)
            let gateway = try await GatewayProcess.start(instance: "test-morning-\(UInt16.random(in: 0...9999))")
            defer {
                first.kill()
                second.kill()
                gateway.process.kill()
            }
            var users: [String] = []
            for i in 0..<50 {
                let (auth, userId) = try await BriefsFakes.signIn(gateway)
                if i == 0 { try await BriefsFakes.waitForBriefs(gateway, auth: auth) }
                let added = try await SystemClient.send(
                    gateway, "POST", "/v1/watchlist/add", json: "{\"ticker\":\"MR\(i)X\"}", headers: auth)
                #expect(added.status == 200)
                users.append(userId)
            }
            // A user whose only ticker is on another list is skipped.
            let (skippedAuth, skipped) = try await BriefsFakes.signIn(gateway)
            let list = try JSONDecoder().decode(
                WatchListResponse.self,
                from: Data(
                    try await SystemClient.send(
                        gateway, "POST", "/v1/watchlist/lists", json: #"{"name":"Side"}"#, headers: skippedAuth
                    ).body)
            ).list
            _ = try await SystemClient.send(
                gateway, "POST", "/v1/watchlist/add", json: #"{"ticker":"SIDE","listId":"\#(list.id)"}"#,
                headers: skippedAuth)

            let watched = Set(users + [skipped])
            let pushes = try BriefsFakes.PushCollector { watched.contains($0) }
            let producer = try KafkaProducer.make(
                configuration: KafkaConfiguration.fromEnvironment(Environment()),
                logger: Logger(label: "t", level: .error))
            for _ in 0..<2 {
                _ = try await producer.send(
                    topic: ServiceName.briefs.commandTopic, key: Array("all".utf8), value: Array("{}".utf8),
                    headers: [KafkaHeader(MessageHeaders.command, GenerateDailyBriefsCommand.name)])
            }
            let deadline = ContinuousClock.now + .seconds(90)
            while pushes.all.count < 50, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(3))
            let sent = pushes.all
            #expect(sent.count == 50)
            #expect(Set(sent.flatMap(\.userIds)) == Set(users))
            #expect(sent.allSatisfy { $0.title == "Your morning read" && $0.eventKey == .dailyBrief })
            // One brief each, whichever replica wrote it: every ticker set reached the model, and only a retry after a
            // failed call (an outage brief is never cached, so a later run writes it again) may add a call.
            let prompted = Set(
                (0..<50).filter { i in openRouter.requests.contains { $0.bodyText.contains("MR\(i)X") } })
            #expect(prompted.count == 50)
            #expect((50...52).contains(openRouter.requests.count))
            #expect(!openRouter.requests.contains { $0.bodyText.contains("SIDE") })

            #expect(second.log.contains("push scheduler on") && second.log.contains("\"job\":\"briefs.movers\""))

            await pushes.stop()
            producer.flush(timeout: .seconds(5))
            for fake in [massive, openRouter, jev] { await fake.shutdown() }
        }
    }
}
