import Contracts
import Foundation
import HTTPServer
import Kafka
import Postgres
import Runtime
import Synchronization
import UpstreamFakes

/// Benchmark helper for `scripts/bench-briefs.sh`, `scripts/bench-movement.sh` and `scripts/bench-scale.sh`.
///
/// `BenchBriefs fakes <model-latency-ms> <env-file> [previous-close]`: loopback Massive (quotes at 100 against the
/// previous close, default 99; news) and OpenRouter (the brief's JSON after a fixed latency); writes the environment
/// pointing Briefs at them; runs until killed.
/// `BenchBriefs seed <users> <prefix>`: gives users `<prefix>-<i>` a default list with two tickers, straight into
/// Briefs' schema (`POSTGRES_URL`; Briefs must have migrated it).
/// `BenchBriefs morning <users> <prefix>`: publishes "generate the daily briefs" once and prints how long it took
/// until every `<prefix>-…` user's `daily_brief` push request was on the push topic, and how many were duplicates.
/// `BenchBriefs local-fakes <latency-ms> <env-file>`: loopback Nominatim, Overpass, Exa (`/search`) and OpenRouter (the
/// local brief's paragraphs), each answering after the latency; writes the environment; runs until killed.
/// `BenchBriefs devices <count> <prefix> <base-lat>`: replaces `briefs.device_movement` with `<count>` fresh, opted-in
/// devices `<prefix>-<i>` without an anchor, ~5.5 km apart from `<base-lat>`, -100 (each its own caches).
/// `BenchBriefs movement <count> <prefix>`: publishes the hourly movement scan once and prints how long it took until
/// every device's `local_brief` push request was on the push topic, the duplicates, and the Postgres statements the
/// tick ran (`pg_stat_statements`: total, per device, the most frequent).
/// `BenchBriefs scale-seed <users> <prefix>`: empties the watchlist and alert tables, then gives users `<prefix>-<i>`
/// the two-ticker default list and two alerts the fake's price fires.
/// `BenchBriefs daily|movers|alerts <users> <prefix>`: publishes the 7 am run, the movers scan or the price-alert scan
/// once and prints the time until the last of its push requests (one per user; two per user for movers, whose fake
/// quotes must move ≥ 5 %) and the Postgres statements per user.
let arguments = CommandLine.arguments
let logger = Logger(label: "bench-briefs", level: .warning)

func fakes(latency: Duration, envFile: String, previousClose: Double) async throws {
    let massive = try FakeUpstream(keepsRequests: false) { request in
        if request.path.hasPrefix("/v2/snapshot/") {
            let symbol = request.path.split(separator: "/").last.map(String.init) ?? "X"
            let body = """
                {"status":"OK","ticker":{"ticker":"\(symbol)","day":{"c":100},"prevDay":{"c":\(previousClose)},\
                "lastTrade":{"p":100,"t":\(Int64(Date().timeIntervalSince1970 * 1000))}}}
                """
            return .json(200, raw: Array(body.utf8))
        }
        let symbol = request.query["ticker"] ?? "X"
        let body = """
            {"status":"OK","results":[{"title":"\(symbol) moves","article_url":"https://news.example/\(symbol)",\
            "publisher":{"name":"Wire"},"published_utc":"\(Timestamp.iso8601(Date()))"}]}
            """
        return .json(200, raw: Array(body.utf8))
    }
    // Each answer is encoded once: Foundation's JSONSerialization per request grew this process by ~5 kB a
    // request and took most of a core at 100,000 users.
    let brief = modelAnswer(content: #"{"headline":"The tape holds","body":"A quiet session for the list."}"#)
    let openRouter = try FakeUpstream(keepsRequests: false) { _ in
        try? await Task.sleep(for: latency)
        return .json(200, raw: brief)
    }
    let env = """
        export MARKET_DATA_PRIMARY=massive MASSIVE_API_KEY=bench MASSIVE_BASE_URL=\(massive.baseURL)
        export OPENROUTER_API_KEY=bench OPENROUTER_BASE_URL=\(openRouter.baseURL) JEV_API_KEY= EXA_API_KEY=
        """
    try env.write(toFile: envFile, atomically: true, encoding: .utf8)
    while true { try await Task.sleep(for: .seconds(3600)) }
}

/// An OpenRouter chat completion whose one choice's message is `content`, encoded.
func modelAnswer(content: String) -> [UInt8] {
    Array((try? JSONEncoder().encode(["choices": [["message": ["content": content]]]])) ?? Data())
}

func seed(users: Int, prefix: String) async throws {
    let db = try await PostgresPool.make(url: try Environment().require("POSTGRES_URL"), size: 2, logger: logger)
    try await db.execute(
        """
        INSERT INTO briefs.watchlist_lists (id, user_id, name, is_default)
        SELECT 'wl_' || \(prefix) || '_' || i, \(prefix) || '-' || i, 'Default', true FROM generate_series(1, \(users)) AS i
        ON CONFLICT DO NOTHING
        """)
    try await db.execute(
        """
        INSERT INTO briefs.user_watchlist (user_id, ticker, source, list_id)
        SELECT \(prefix) || '-' || i, t || (i % 200), 'manual', 'wl_' || \(prefix) || '_' || i
        FROM generate_series(1, \(users)) AS i, unnest(ARRAY['BA', 'BB']) AS t
        ON CONFLICT DO NOTHING
        """)
    await db.close()
}

/// Publishes `command` (no id: the whole expansion) once on Briefs' topic and waits until `expected` distinct push
/// requests, each named by `pick` (nil: not this run's), are on the push topic; `before` runs once the consumer has
/// joined, just before the publish. Returns the distinct and total counts and the time until the last distinct one.
func timedRun(
    command: String, expected: Int, progress: String, before: () async throws -> Void = {},
    pick: @escaping @Sendable (PushRequest) -> String?
) async throws -> (unique: Int, total: Int, elapsed: Duration) {
    let kafka = KafkaConfiguration.fromEnvironment(Environment())
    let consumer = try KafkaGroupConsumer.make(
        configuration: kafka, groupId: "bench-briefs-\(UInt32.random(in: 0...UInt32.max))",
        topics: [Topics.pushRequests],
        logger: logger)
    final class Seen: Sendable { let names = Mutex<(unique: Set<String>, total: Int)>(([], 0)) }
    let seen = Seen()
    consumer.setHandler(maxInFlight: 64) { message in
        guard let request = try? JSONDecoder().decode(PushRequest.self, from: Data(message.value)),
            let name = pick(request)
        else { return }
        seen.names.withLock {
            $0.unique.insert(name)
            $0.total += 1
        }
    }
    let consuming = Task { try await consumer.run() }
    try await Task.sleep(for: .seconds(5))  // join the group before publishing
    try await before()
    let producer = try KafkaProducer.make(configuration: kafka, logger: logger)
    let started = ContinuousClock.now
    _ = try await producer.send(
        topic: ServiceName.briefs.commandTopic, key: Array("all".utf8), value: Array("{}".utf8),
        headers: [KafkaHeader(MessageHeaders.command, command)])
    var lastReport = ContinuousClock.now
    while seen.names.withLock({ $0.unique.count }) < expected, ContinuousClock.now - started < .seconds(3600) {
        try await Task.sleep(for: .milliseconds(200))
        if ContinuousClock.now - lastReport > .seconds(10) {
            lastReport = ContinuousClock.now
            print("  … \(seen.names.withLock { $0.unique.count }) \(progress)")
        }
    }
    let elapsed = ContinuousClock.now - started
    try await Task.sleep(for: .seconds(3))  // late duplicates, and the work after each push (an anchor's advance)
    let (unique, total) = seen.names.withLock { ($0.unique.count, $0.total) }
    await consumer.shutdown()
    _ = try? await consuming.value
    producer.flush(timeout: .seconds(5))
    return (unique, total, elapsed)
}

func morning(users: Int, prefix: String) async throws {
    let (unique, total, elapsed) = try await timedRun(
        command: GenerateDailyBriefsCommand.name, expected: users, progress: "briefs pushed"
    ) { request in
        guard request.eventKey == .dailyBrief, let user = request.userIds.first, user.hasPrefix(prefix + "-") else {
            return nil
        }
        return user
    }
    print(
        String(
            format: "%ld users: %ld daily_brief push requests (%ld duplicates) in %.2f min (%.0f users/s)", users,
            unique,
            total - unique, elapsed.inSeconds / 60, Double(unique) / elapsed.inSeconds))
}

func localFakes(latency: Duration, envFile: String) async throws {
    let nominatim = try FakeUpstream(keepsRequests: false) { _ in
        try? await Task.sleep(for: latency)
        let body = #"{"address":{"suburb":"Bench Heights","city":"Benchton","state":"Nevada","postcode":"89000"}}"#
        return .json(200, raw: Array(body.utf8))
    }
    let overpass = try FakeUpstream(keepsRequests: false) { _ in
        try? await Task.sleep(for: latency)
        let body = """
            {"elements":[{"type":"node","id":1,"lat":0,"lon":0,"tags":{"name":"Starbucks","brand":"Starbucks","amenity":"cafe"}},\
            {"type":"node","id":2,"lat":0,"lon":0,"tags":{"name":"Corner Books","shop":"books"}}]}
            """
        return .json(200, raw: Array(body.utf8))
    }
    let exa = try FakeUpstream(keepsRequests: false) { _ in
        try? await Task.sleep(for: latency)
        let body = """
            {"results":[{"title":"Benchton economy","url":"https://news.example/a","highlights":["Jobs grew."]},\
            {"title":"Benchton council","url":"https://news.example/b","highlights":["Permits eased."]}]}
            """
        return .json(200, raw: Array(body.utf8))
    }
    let paragraphs = [
        "Bench Heights mixes cafés such as $SBUX with shops.", "Jobs grew.", "Permits eased. Tailwinds: traffic.",
    ]
    let brief = modelAnswer(
        content: String(decoding: (try? JSONEncoder().encode(["paragraphs": paragraphs])) ?? Data(), as: UTF8.self))
    let openRouter = try FakeUpstream(keepsRequests: false) { _ in
        try? await Task.sleep(for: latency)
        return .json(200, raw: brief)
    }
    let env = """
        export NOMINATIM_BASE_URL=\(nominatim.baseURL) OVERPASS_URLS=\(overpass.baseURL)/api/interpreter
        export PHOTON_BASE_URL=http://127.0.0.1:1 GOOGLE_MAPS_API_KEY= EXA_API_KEY=bench EXA_BASE_URL=\(exa.baseURL)
        export OPENROUTER_API_KEY=bench OPENROUTER_BASE_URL=\(openRouter.baseURL) JEV_API_KEY=
        """
    try env.write(toFile: envFile, atomically: true, encoding: .utf8)
    while true { try await Task.sleep(for: .seconds(3600)) }
}

func devices(count: Int, prefix: String, baseLat: Double) async throws {
    let db = try await PostgresPool.make(url: try Environment().require("POSTGRES_URL"), size: 1, logger: logger)
    try await db.execute("TRUNCATE briefs.device_movement")
    try await db.execute(
        """
        INSERT INTO briefs.device_movement
            (token_id, user_id, lat, lng, located_at, notifications_enabled, local_brief, uncaught_nearby)
        SELECT \(prefix) || '-' || i, \(prefix) || '-user-' || i, \(baseLat) + (i / 100) * 0.05, -100 + (i % 100) * 0.05,
               now(), true, true, false
        FROM generate_series(1, \(count)) AS i
        """)
    await db.close()
}

func movement(count: Int, prefix: String) async throws {
    let db = try await PostgresPool.make(url: try Environment().require("POSTGRES_URL"), size: 1, logger: logger)
    try await db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    let (unique, total, elapsed) = try await timedRun(
        command: ScanMovementCommand.name, expected: count, progress: "local_brief pushes",
        before: { _ = try await db.query("SELECT pg_stat_statements_reset()") }
    ) { request in
        guard request.eventKey == .localBrief, let token = request.tokenId, token.hasPrefix(prefix + "-") else {
            return nil
        }
        return token
    }
    // This tool's own statements (the reset, this read) are left out by their text.
    let statements = try await db.query(
        """
        SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC
        """)
    let calls = statements.compactMap { $0.int("calls") }.reduce(0, +)
    print(
        String(
            format: "%ld devices: %ld local_brief push requests (%ld duplicates) in %.2f min (%.0f devices/s)", count,
            unique,
            total - unique, elapsed.inSeconds / 60, Double(unique) / elapsed.inSeconds))
    print(
        String(
            format: "Postgres: %ld statements, %.2f per device; most frequent:", calls,
            Double(calls) / Double(max(count, 1))))
    for row in statements.prefix(5) { print("  \(row.int("calls") ?? 0) × \(row.string("query") ?? "")") }
    await db.close()
}

do {
    switch arguments.count >= 4 ? arguments[1] : "" {
    case "fakes":
        try await fakes(
            latency: .milliseconds(Int64(arguments[2]) ?? 50), envFile: arguments[3],
            previousClose: arguments.count >= 5 ? Double(arguments[4]) ?? 99 : 99)
    case "seed": try await seed(users: Int(arguments[2]) ?? 10_000, prefix: arguments[3])
    case "morning": try await morning(users: Int(arguments[2]) ?? 10_000, prefix: arguments[3])
    case "local-fakes": try await localFakes(latency: .milliseconds(Int64(arguments[2]) ?? 50), envFile: arguments[3])
    case "devices" where arguments.count >= 5:
        try await devices(count: Int(arguments[2]) ?? 10_000, prefix: arguments[3], baseLat: Double(arguments[4]) ?? 10)
    case "movement": try await movement(count: Int(arguments[2]) ?? 10_000, prefix: arguments[3])
    case "scale-seed":
        try await clearUsers()
        try await seed(users: Int(arguments[2]) ?? 10_000, prefix: arguments[3])
        try await seedAlerts(users: Int(arguments[2]) ?? 10_000, prefix: arguments[3])
    case "daily", "movers", "alerts":
        let (users, prefix) = (Int(arguments[2]) ?? 10_000, arguments[3])
        let (command, perUser, key): (String, Int, PushEventKey) =
            switch arguments[1] {
            case "daily": (GenerateDailyBriefsCommand.name, 1, .dailyBrief)
            case "movers": (ScanWatchlistMoversCommand.name, 2, .watchlistMover)
            default: (ScanPriceAlertsCommand.name, 1, .priceAlerts)
            }
        try await scaleRun(
            command: command, users: users, expected: users * perUser, label: "\(key.rawValue) push requests",
            pick: pushes(key, prefix: prefix))
    default:
        print(
            "usage: BenchBriefs fakes <latency-ms> <env-file> [previous-close] | seed <users> <prefix> | "
                + "morning <users> <prefix> | local-fakes <latency-ms> <env-file> | "
                + "devices <count> <prefix> <base-lat> | movement <count> <prefix> | scale-seed <users> <prefix> | "
                + "daily|movers|alerts <users> <prefix>"
        )
        exit(2)
    }
} catch {
    print("bench-briefs failed: \(error)")
    exit(1)
}
