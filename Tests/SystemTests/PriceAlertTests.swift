import Contracts
import Foundation
import HTTPClient
import Kafka
import Messaging
import Postgres
import Runtime
import Scheduling
import TestSupport
import Testing
import UpstreamFakes

extension SystemTests {
    /// `/v1/alerts` through a real Gateway and Briefs, and the 16:00 `price_alerts` scan across two replicas.
    /// The fake quotes every symbol at 100 (+1.01 %), `MV…` at +7 %.
    @Suite struct PriceAlertTests {
        @Test func routesValidateAndAreOwnerScoped() async throws {
            let (massive, openRouter, jev, env) = try BriefsFakes.upstreams(BriefsFakes.Knobs())
            let session = try await BriefsRouteSession.start(instance: "test-alerts", env: env)
            defer { session.stop() }
            let (gateway, other) = (session.gateway, session.other)

            #expect(try await SystemClient.send(gateway, "GET", "/v1/alerts").status == 401)
            let kinds = "kind must be one of price_above, price_below, pct_move"
            session.expectError(try await session.send("POST", "/v1/alerts", "not json"), 400, "ticker required")
            session.expectError(
                try await session.send("POST", "/v1/alerts", #"{"ticker":"1AB","kind":"price_above","threshold":1}"#),
                400,
                "ticker required")
            session.expectError(
                try await session.send(
                    "POST", "/v1/alerts", #"{"ticker":"ABCDEFGHIJK","kind":"price_above","threshold":1}"#),
                400, "ticker required")
            session.expectError(
                try await session.send("POST", "/v1/alerts", #"{"ticker":"AAPL","kind":"above","threshold":1}"#), 400,
                kinds)
            session.expectError(
                try await session.send(
                    "POST", "/v1/alerts", #"{"ticker":"AAPL","kind":"price_above","threshold":"abc"}"#), 400,
                "threshold must be a finite number")
            session.expectError(
                try await session.send(
                    "POST", "/v1/alerts", #"{"ticker":"AAPL","kind":"price_above","threshold":null}"#), 400,
                "threshold must be a finite number")
            // A number JSON cannot hold makes the body unreadable, as any broken body.
            #expect(
                try await session.send(
                    "POST", "/v1/alerts", #"{"ticker":"AAPL","kind":"price_above","threshold":1e999}"#
                )
                .status == 400)
            session.expectError(
                try await session.send(
                    "POST", "/v1/alerts", #"{"ticker":"AAPL","kind":"price_above","note":"a\u0000b","threshold":1}"#),
                400,
                "request body must not contain NUL characters")

            // A numeric string threshold is taken, the ticker upper-cased, the note trimmed and cut at 240.
            let long = String(repeating: "n", count: 300)
            let created = try await session.send(
                "POST", "/v1/alerts",
                #"{"ticker":" aapl ","kind":"price_above","threshold":"50","note":"  \#(long)  "}"#)
            #expect(created.status == 200)
            let above = try JSONDecoder().decode(PriceAlertResponse.self, from: Data(created.body)).alert
            #expect(
                above.ticker == "AAPL" && above.kind == .priceAbove && above.threshold == 50 && above.note?.count == 240
            )
            #expect(above.id.hasPrefix("alt_") && above.triggeredAt == nil && !above.disabled)
            let below = try JSONDecoder().decode(
                PriceAlertResponse.self,
                from: Data(
                    try await session.send(
                        "POST", "/v1/alerts", #"{"ticker":"MSFT","kind":"price_below","threshold":50}"#
                    ).body
                )
            ).alert
            #expect(below.note == nil)

            // Newest first; the other user sees none of them and cannot delete them.
            let listed = try JSONDecoder().decode(
                PriceAlertsResponse.self, from: Data(try await session.send("GET", "/v1/alerts").body))
            #expect(listed.alerts.map(\.id) == [below.id, above.id])
            let theirs = try JSONDecoder().decode(
                PriceAlertsResponse.self, from: Data(try await session.send("GET", "/v1/alerts", as: other).body))
            #expect(theirs.alerts.isEmpty)
            session.expectError(try await session.send("DELETE", "/v1/alerts/\(above.id)", as: other), 404, "not found")
            // A NUL in the path is refused at the edge, before any route.
            session.expectError(
                try await session.send("DELETE", "/v1/alerts/%00bad", as: other), 400,
                "request path must be UTF-8 without NUL characters")
            let otherCheck = try JSONDecoder().decode(
                PriceAlertCheckResponse.self,
                from: Data(try await session.send("GET", "/v1/alerts/check", as: other).body))
            #expect(otherCheck.triggered.isEmpty)

            // The check fires the satisfied alert once.
            let check = try JSONDecoder().decode(
                PriceAlertCheckResponse.self, from: Data(try await session.send("GET", "/v1/alerts/check").body))
            #expect(check.triggered.map(\.id) == [above.id] && check.triggered[0].triggeredAt != nil)
            let again = try JSONDecoder().decode(
                PriceAlertCheckResponse.self, from: Data(try await session.send("GET", "/v1/alerts/check").body))
            #expect(again.triggered.isEmpty)

            #expect(try await session.send("DELETE", "/v1/alerts/\(below.id)").status == 204)
            session.expectError(try await session.send("DELETE", "/v1/alerts/\(below.id)"), 404, "not found")
            let left = try JSONDecoder().decode(
                PriceAlertsResponse.self, from: Data(try await session.send("GET", "/v1/alerts").body))
            #expect(left.alerts.map(\.id) == [above.id] && left.alerts[0].triggeredAt != nil)
            for fake in [massive, openRouter, jev] { await fake.shutdown() }
        }

        @Test func fourPmSlotOnTwoReplicasPushesEachAlertOnce() async throws {
            let (massive, openRouter, jev, env) = try BriefsFakes.upstreams(BriefsFakes.Knobs())
            let first = try await ServiceProcess.start("Briefs", extra: env)
            let second = try await ServiceProcess.start("Briefs", extra: env)
            let gateway = try await GatewayProcess.start(instance: "test-alerts-scan-\(UInt16.random(in: 0...9999))")
            defer {
                first.kill()
                second.kill()
                gateway.process.kill()
            }
            // Two users: one with two firing alerts and one that does not fire, one with a single firing alert.
            let (authA, userA) = try await BriefsFakes.signIn(gateway)
            let (authB, userB) = try await BriefsFakes.signIn(gateway)
            try await BriefsFakes.waitForBriefs(gateway, auth: authA)
            for (auth, body) in [
                (authA, #"{"ticker":"AAPL","kind":"price_above","threshold":99.5}"#),
                (authA, #"{"ticker":"MVQ","kind":"pct_move","threshold":5}"#),
                (authA, #"{"ticker":"MSFT","kind":"pct_move","threshold":5}"#),
                (authB, #"{"ticker":"NVDA","kind":"price_below","threshold":120}"#),
            ] {
                #expect(
                    try await SystemClient.send(gateway, "POST", "/v1/alerts", json: body, headers: auth).status == 200)
            }
            let pushes = try BriefsFakes.PushCollector { $0 == userA || $0 == userB }

            // Two scheduler replicas tick at 16:00:30 New York time; one of them publishes the scan.
            let kafka = KafkaConfiguration.fromEnvironment(Environment())
            let logger = Logger(label: "t", level: .error)
            let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
            let pool = try await PostgresPool.make(
                url: try TestEnvironment.require("POSTGRES_URL"), size: 2, logger: logger)
            let schema = "mvt_alerts_" + String(UInt32.random(in: 0...UInt32.max))
            try await pool.migrate(
                schema: schema, migrations: [SlotClaims.migration(version: 1, table: "\(schema).job_slots")])
            let zone = try #require(TimeZone(identifier: "America/New_York"))
            let job = ScheduledCommand(
                job: "briefs.price_alerts.16", schedule: .daily(hour: 16, minute: 0),
                topic: ServiceName.briefs.commandTopic,
                command: ScanPriceAlertsCommand.name, key: "all", body: Array("{}".utf8))
            let fourPM = Date(timeIntervalSince1970: 1_796_158_830)  // 2026-12-01T21:00:30Z
            let replicas = ["a", "b"].map {
                CommandScheduler(
                    jobs: [job], claims: SlotClaims(db: pool, table: "\(schema).job_slots", owner: $0),
                    publisher: EventPublisher(producer: producer, logger: logger), timeZone: zone, clock: { fourPM },
                    logger: logger)
            }
            async let tickA = replicas[0].tick(now: fourPM)
            async let tickB = replicas[1].tick(now: fourPM)
            #expect(await tickA + tickB == ["briefs.price_alerts.16@2026-12-01T21:00Z"])
            // An outside producer's duplicate of the same scan changes nothing.
            _ = try await producer.send(
                topic: ServiceName.briefs.commandTopic, key: Array("all".utf8), value: Array("{}".utf8),
                headers: [KafkaHeader(MessageHeaders.command, ScanPriceAlertsCommand.name)])

            let deadline = ContinuousClock.now + .seconds(60)
            while pushes.all.count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
            try await Task.sleep(for: .seconds(3))
            let sent = pushes.all
            #expect(sent.count == 2)
            let toA = try #require(sent.first { $0.userIds == [userA] })
            #expect(toA.title == "Price alerts: 2 tickers moved" && toA.eventKey == .priceAlerts)
            #expect(Set(toA.body.components(separatedBy: ", ")) == ["$AAPL", "$MVQ"])
            #expect(
                toA.dedupe.count == 2
                    && toA.dedupe.allSatisfy { $0.slot == "price_alerts" && $0.key.hasPrefix("price_alerts-") })
            let toB = try #require(sent.first { $0.userIds == [userB] })
            #expect(toB.title == "Price alert: $NVDA" && toB.body == "$NVDA fell below $120.00")
            #expect(toB.target.type == "alerts" && toB.data["tickers"] == .array([.string("NVDA")]))

            // The pushed alerts are fired; the one that did not fire is still active.
            let listed = try JSONDecoder().decode(
                PriceAlertsResponse.self,
                from: Data(try await SystemClient.send(gateway, "GET", "/v1/alerts", headers: authA).body))
            #expect(listed.alerts.count == 3)  // one alert per create, however often a command was delivered
            #expect(
                Dictionary(listed.alerts.map { ($0.ticker, $0.triggeredAt != nil) }, uniquingKeysWith: { a, _ in a })
                    == ["AAPL": true, "MVQ": true, "MSFT": false])

            await pushes.stop()
            producer.flush(timeout: .seconds(5))
            await pool.close()
            for fake in [massive, openRouter, jev] { await fake.shutdown() }
        }
    }
}
