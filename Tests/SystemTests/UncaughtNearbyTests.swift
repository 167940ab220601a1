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
    /// The movement scheduler's uncaught-nearby branch end to end (docs/COMPATIBILITY.md#push-events, #movement):
    /// heartbeats through the gateway to PushDispatcher and on to Briefs, the user's find through Identify's journal
    /// and its `find.recorded` event into Briefs' read model, the default watchlist, places from a fake Overpass that
    /// puts six seed brands north of whatever point it is asked about (Starbucks nearest, then McDonald's, Target,
    /// Walmart, CVS, Home Depot), and the hourly scan published as an outside producer would.
    @Suite struct UncaughtNearbyTests {
        /// Overpass: the six brands 100…600 m north of the asked point.
        static func overpass() throws -> FakeUpstream {
            try FakeUpstream { request in
                let query = String(decoding: request.body, as: UTF8.self).removingPercentEncoding ?? ""
                guard let range = query.range(of: #"around:\d+,(-?[0-9.]+),(-?[0-9.]+)"#, options: .regularExpression)
                else {
                    return .error(400, "no around")
                }
                let parts = query[range].split(separator: ",")
                guard parts.count == 3, let lat = Double(parts[1]), let lng = Double(parts[2]) else {
                    return .error(400, "bad around")
                }
                let brands = [
                    ("Starbucks", "amenity", "cafe"), ("McDonald's", "amenity", "fast_food"),
                    ("Target", "shop", "department_store"),
                    ("Walmart", "shop", "supermarket"), ("CVS", "shop", "chemist"),
                    ("Home Depot", "shop", "doityourself"),
                ]
                let elements = brands.enumerated().map { index, brand in
                    """
                    {"type":"node","id":\(900 + index),"lat":\(lat + 0.0009 * Double(index + 1)),"lon":\(lng),\
                    "tags":{"name":"\(brand.0)","brand":"\(brand.0)","\(brand.1)":"\(brand.2)"}}
                    """
                }
                return .json(200, raw: Array("{\"elements\":[\(elements.joined(separator: ","))]}".utf8))
            }
        }

        @Test func budgetsOwnershipAndOneDeviceOnly() async throws {
            let (massive, overpass, photon) = (
                try BriefsFakes.massive(), try Self.overpass(), try FakeUpstream { _ in .error(503, "down") }
            )
            let env = [
                "MARKET_DATA_PRIMARY": "massive", "MASSIVE_API_KEY": "test-massive",
                "MASSIVE_BASE_URL": massive.baseURL,
                "OPENROUTER_API_KEY": "", "EXA_API_KEY": "", "JEV_API_KEY": "", "GOOGLE_MAPS_API_KEY": "",
                "OVERPASS_URLS": overpass.baseURL + "/api/interpreter", "PHOTON_BASE_URL": photon.baseURL,
            ]
            let briefs = try await ServiceProcess.start("Briefs", extra: env)
            let identify = try await ServiceProcess.start("Identify", extra: env)
            let push = try await Devices.dispatcher(schema: "push_uncaught")
            let gateway = try await GatewayProcess.start(instance: "test-uncaught-\(UInt16.random(in: 0...9999))")
            defer {
                briefs.kill()
                identify.kill()
                push.kill()
                gateway.process.kill()
            }
            let (auth, userId) = try await BriefsFakes.signIn(gateway)
            let pushes = try BriefsFakes.PushCollector { $0 == userId }
            try await BriefsFakes.waitForBriefs(gateway, auth: auth)
            let (db, producer) = try await Devices.briefsStoreAndProducer()

            // The user's universe: Starbucks found (elsewhere), McDonald's on the default watchlist.
            let found = try await SystemClient.send(
                gateway, "POST", "/v1/finds",
                json:
                    #"{"finds":[{"brand":"Starbucks","ticker":"SBUX","isPublic":true,"confidence":"high","lat":1.5,"lng":1.5}]}"#,
                headers: auth)
            #expect(found.status == 200)
            #expect(
                try await SystemClient.send(
                    gateway, "POST", "/v1/watchlist/add", json: #"{"ticker":"MCD"}"#, headers: auth
                ).status == 200)
            try await Self.waitUntil("the find in Briefs' read model") {
                try await !db.query("SELECT 1 FROM briefs.user_finds WHERE user_id = \(userId) AND ticker = 'SBUX'")
                    .isEmpty
            }

            func register() async throws -> String { try await Devices.register(gateway, auth: auth) }
            func heartbeat(_ tokenId: String, lat: Double, lng: Double) async throws {
                let prefs = """
                    {"notifications_enabled":true,"uncaught_nearby":true,"last_lat":\(lat),"last_lng":\(lng),\
                    "last_location_at":"\(Timestamp.iso8601(Date()))"}
                    """
                let written = try await SystemClient.send(
                    gateway, "POST", "/v1/push/prefs", json: "{\"tokenId\":\"\(tokenId)\",\"prefs\":\(prefs)}",
                    headers: auth)
                #expect(written.status == 200)
                try await Self.waitUntil("fix for \(tokenId)") {
                    try await !db.query(
                        "SELECT 1 FROM briefs.device_movement WHERE token_id = \(tokenId) AND lat = \(lat)"
                    ).isEmpty
                }
            }
            /// One scan, then the wait until the device's uncaught anchor is at `lat` (every decision moves it).
            func scan(deciding tokenIds: [String], at lat: Double) async throws {
                _ = try await producer.send(
                    topic: ServiceName.briefs.commandTopic, key: Array("all".utf8), value: Array("{}".utf8),
                    headers: [KafkaHeader(MessageHeaders.command, ScanMovementCommand.name)])
                for tokenId in tokenIds {
                    try await Self.waitUntil("decision for \(tokenId)") {
                        try await db.query(
                            "SELECT uncaught_lat FROM briefs.device_movement WHERE token_id = \(tokenId)"
                        )
                        .first?.double("uncaught_lat") == lat
                    }
                }
                try await Task.sleep(for: .seconds(2))
            }
            /// Stands in for a day passing within this UTC week: earlier pushes stop counting against today.
            func nextDay(_ tokenId: String) async throws {
                try await db.execute("UPDATE briefs.uncaught_pushes SET day = '19700101' WHERE token_id = \(tokenId)")
            }
            func tickers(_ tokenId: String) -> [String] {
                pushes.all.filter { $0.tokenId == tokenId }.compactMap {
                    if case .string(let t)? = $0.data["ticker"] { t } else { nil }
                }
            }

            let (phone, tablet) = (try await register(), try await register())
            let lat = Double(Int.random(in: 10_000...50_000)) / 1000
            let lng = 100.0
            try await heartbeat(phone, lat: lat, lng: lng)
            try await heartbeat(tablet, lat: lat, lng: lng)

            // No anchors yet: each device its own push. Starbucks (found) and McDonald's (watchlisted) are nearer,
            // but owned: the nearest uncaught brand, Target, wins (Consumer Staples: empty sector 2 + new tile 1).
            try await scan(deciding: [phone, tablet], at: lat)
            // The collector's consumer group may still be joining when the first decisions land (it reads from the
            // earliest offset, so nothing is missed): wait for both before checking; later scans find it running.
            try await Self.waitUntil("the first two pushes") { pushes.all.count >= 2 }
            #expect(tickers(phone) == ["TGT"] && tickers(tablet) == ["TGT"] && pushes.all.count == 2)
            let first = try #require(pushes.all.first { $0.tokenId == phone })
            #expect(
                first.title == "Uncaught nearby — Target" && first.eventKey == .uncaughtNearby
                    && first.userIds == [userId])
            #expect(first.body == "Target (TGT) is 300m away and isn't in your universe yet")
            #expect(first.target.type == "map" && first.data["kind"] == .string("uncaught_nearby"))
            #expect(
                first.dedupe.map(\.slot) == [
                    "uncaught:\(phone):TGT", "uncaught_day:\(phone)", "uncaught_week:\(phone)",
                ])

            // The phone moves 2.5 km the same day: refused by the day budget, the anchor still moves; the tablet
            // did not move and gets nothing.
            try await heartbeat(phone, lat: lat + 0.0225, lng: lng)
            try await scan(deciding: [phone], at: lat + 0.0225)
            #expect(pushes.all.count == 2)

            // Days pass within the week: the 2nd and 3rd pushes go to the phone only, a new brand each time.
            try await nextDay(phone)
            try await heartbeat(phone, lat: lat + 0.045, lng: lng)
            try await scan(deciding: [phone], at: lat + 0.045)
            try await nextDay(phone)
            try await heartbeat(phone, lat: lat + 0.0675, lng: lng)
            try await scan(deciding: [phone], at: lat + 0.0675)
            #expect(tickers(phone) == ["TGT", "WMT", "CVS"] && tickers(tablet) == ["TGT"])
            #expect(pushes.all.last?.dedupe.last == PushDedupe(slot: "uncaught_week:\(phone)", key: "\(Self.week()):3"))

            // The 4th of the week, on yet another day: refused by the week budget.
            try await nextDay(phone)
            try await heartbeat(phone, lat: lat + 0.09, lng: lng)
            try await scan(deciding: [phone], at: lat + 0.09)
            #expect(tickers(phone) == ["TGT", "WMT", "CVS"] && pushes.all.count == 4)
            let recorded = try await db.query(
                "SELECT count(*) AS n FROM briefs.uncaught_pushes WHERE token_id = \(phone) AND published")
            #expect(recorded.first?.int("n") == 3)

            // A push decided but never published (a crash between the decision and the publish) goes out with the
            // device's next command, before anything else is decided, and is then marked published.
            let left = PushRequest(
                id: "uncaught_nearby-left-\(phone)", userIds: [userId], tokenId: phone, eventKey: .uncaughtNearby,
                title: "Uncaught nearby — Home Depot",
                body: "Home Depot (HD) is 600m away and isn't in your universe yet",
                data: ["kind": .string("uncaught_nearby"), "ticker": .string("HD")],
                target: PushTarget(type: "map", fields: ["placeId": .string("node/905"), "ticker": .string("HD")]),
                dedupe: [PushDedupe(slot: "uncaught:\(phone):HD", key: "1")])
            let leftBody = String(decoding: try JSONEncoder().encode(left), as: UTF8.self)
            try await db.execute(
                """
                INSERT INTO briefs.uncaught_pushes (token_id, ticker, day, week, request)
                VALUES (\(phone), 'HD', '19700101', '19700105', \(PostgresJSON(leftBody)))
                """)
            _ = try await producer.send(
                topic: ServiceName.briefs.commandTopic, key: Array(phone.utf8),
                value: Array(try JSONEncoder().encode(ScanMovementCommand(tokenId: phone))),
                headers: [KafkaHeader(MessageHeaders.command, ScanMovementCommand.name)])
            try await Self.waitUntil("the left push published") {
                try await !db.query(
                    "SELECT 1 FROM briefs.uncaught_pushes WHERE token_id = \(phone) AND ticker = 'HD' AND published"
                ).isEmpty
            }
            try await Task.sleep(for: .seconds(1))
            #expect(tickers(phone) == ["TGT", "WMT", "CVS", "HD"] && pushes.all.count == 5)
            await pushes.stop()
            await db.close()
        }

        /// `YYYYMMDD` of this UTC week's Monday.
        static func week() -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
            let now = Date()
            let back = (calendar.component(.weekday, from: now) + 5) % 7
            return String(Timestamp.iso8601(calendar.date(byAdding: .day, value: -back, to: now) ?? now).prefix(10))
                .filter(\.isNumber)
        }

        static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if try await condition() { return }
                try await Task.sleep(for: .milliseconds(200))
            }
            throw Failure("\(what): not within 30 s")
        }
    }
}
