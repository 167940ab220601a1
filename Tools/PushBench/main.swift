import Contracts
import Foundation
import HTTPClient
import HTTPServer
import Postgres
import PushAdapters
import Runtime
import Synchronization
import UpstreamFakes

/// Push delivery throughput: tokens per second handed to a loopback Expo fake by 1 and 3 in-process dispatcher
/// replicas (each with its own pools, sharing Postgres and the Redis pace), with the 600/s pace lifted and on, and the
/// p50/p99 time a batch holds its session-level advisory locks. Needs `POSTGRES_URL` and `REDIS_URL`
/// (`scripts/bench-push.sh` starts them). `BENCH_TOKENS` (20 000) physical tokens, one per user, 100 users per request.

let env = Environment()
guard let postgresURL = env.get("POSTGRES_URL"), let redisURL = env.get("REDIS_URL") else {
    print("POSTGRES_URL and REDIS_URL are required (run scripts/bench-push.sh)")
    exit(2)
}
let tokenCount = max(100, env.get("BENCH_TOKENS", default: 20_000))
let pacedTokens = max(100, env.get("BENCH_PACED_TOKENS", default: 3_000))
let requestsInFlight = max(1, env.get("BENCH_REQUESTS_IN_FLIGHT", default: 16))
let handoffs = env.get("PUSH_MAX_CONCURRENT_HANDOFFS", default: "4")
let logger = Logger(label: "push-bench", level: .warning)
let schema = "push_bench_\(UInt32.random(in: 0...UInt32.max))"

/// The Expo fake: counts messages without decoding them and answers `ok` tickets.
let handedOff = Atomic<Int>(0)
let okTicket = Array(#"{"status":"ok","id":"bench-ticket"}"#.utf8)
let expo = try FakeUpstream(keepsRequests: false) { request in
    var count = 0
    let needle = Array(#""to":"#.utf8)
    let body = request.body
    var i = 0
    while i + needle.count <= body.count {
        if body[i] == needle[0] && Array(body[i..<i + needle.count]) == needle {
            count += 1
            i += needle.count
        } else {
            i += 1
        }
    }
    handedOff.add(count, ordering: .relaxed)
    var out = Array(#"{"data":["#.utf8)
    for n in 0..<count {
        if n > 0 { out.append(UInt8(ascii: ",")) }
        out += okTicket
    }
    out += Array("]}".utf8)
    return .json(200, raw: out)
}

func configuration(pace: Int) -> PushConfiguration {
    PushConfiguration(
        Environment([
            "MAPVEST_ENV": "dev", "POSTGRES_URL": postgresURL, "REDIS_URL": redisURL, "PUSH_SCHEMA": schema,
            "EXPO_BASE_URL": expo.baseURL, "EXPO_PACE_PER_SECOND": String(pace), "POSTGRES_POOL_SIZE": "2",
            "PUSH_MAX_CONCURRENT_HANDOFFS": handoffs, "EXPO_PACE_KEY": "mapvest:bench:pace:\(schema)",
        ]))
}

let holds = Mutex<[Double]>([])
let http = try HTTPClient.make(logger: Logger(label: "push-bench-http", level: .error))
func replicas(_ n: Int, pace: Int) async throws -> [PushRuntime] {
    var out: [PushRuntime] = []
    for _ in 0..<n {
        out.append(
            try await PushRuntime.make(
                configuration: configuration(pace: pace), logger: logger, http: http,
                onLockHeld: { held in holds.withLock { $0.append(held.inMilliseconds) } }))
    }
    return out
}

// Seed: one opted-in physical token per user (claims first, so the mute trigger leaves the rows alone).
let seedPool = try await PostgresPool.make(url: postgresURL, size: 2, logger: logger)
try await PushSchema(name: schema).bootstrap(seedPool, logger: logger)

/// Adds users `usr_bench_<first…last>`, each with one opted-in physical token.
func seedTokens(_ first: Int, _ last: Int) async throws {
    try await seedPool.execute(
        """
        INSERT INTO \(unescaped: schema).push_token_claims (expo_token, token_id, user_id)
        SELECT 'ExponentPushToken[bench-' || g || ']', 'push_' || md5(g::text), 'usr_bench_' || g
          FROM generate_series(\(first), \(last)) g
        """)
    try await seedPool.execute(
        """
        INSERT INTO \(unescaped: schema).push_tokens (id, user_id, expo_token, prefs)
        SELECT 'push_' || md5(g::text), 'usr_bench_' || g, 'ExponentPushToken[bench-' || g || ']',
               '{"notifications_enabled": true, "identify_done": true}'::jsonb
          FROM generate_series(\(first), \(last)) g
        """)
    try await seedPool.withConnection {
        try await $0.simpleQuery("ANALYZE \(schema).push_tokens; ANALYZE \(schema).push_token_claims")
    }
}

/// Sum and count per batch step, from the dispatcher's own histogram (`push_batch_phase_seconds`).
func phaseTotals() -> [String: (sum: Double, count: Double)] {
    var totals: [String: (sum: Double, count: Double)] = [:]
    for line in MetricsRegistry.shared.render().split(separator: "\n") where line.hasPrefix("push_batch_phase_seconds_")
    {
        guard let open = line.firstIndex(of: "\""), let close = line[line.index(after: open)...].firstIndex(of: "\""),
            let value = Double(line.split(separator: " ").last ?? "")
        else { continue }
        let phase = String(line[line.index(after: open)..<close])
        if line.hasPrefix("push_batch_phase_seconds_sum") { totals[phase, default: (0, 0)].sum = value }
        if line.hasPrefix("push_batch_phase_seconds_count") { totals[phase, default: (0, 0)].count = value }
    }
    return totals
}

/// The next request to deliver, shared by the delivering tasks.
final class Cursor: Sendable {
    let value = Atomic<Int>(0)
}

/// Delivers requests of 100 users each for the first `tokens` users, `requestsInFlight` at a time per replica.
func run(_ label: String, replicas: [PushRuntime], tokens: Int) async {
    holds.withLock { $0 = [] }
    handedOff.store(0, ordering: .relaxed)
    let run = UUID().uuidString
    let requests = stride(from: 1, through: tokens, by: 100).map { start in
        PushRequest(
            id: UUID().uuidString, userIds: (start..<min(tokens + 1, start + 100)).map { "usr_bench_\($0)" },
            eventKey: .identifyDone, title: "Found it", body: "$SBUX — Starbucks",
            data: ["kind": .string("identify_done")],
            target: PushTarget(type: "company", fields: ["ticker": .string("SBUX")]),
            dedupe: [PushDedupe(slot: "identify_done", key: run)])
    }
    let next = Cursor()
    let before = phaseTotals()
    let started = ContinuousClock.now
    await withTaskGroup(of: Void.self) { group in
        for replica in replicas {
            for _ in 0..<requestsInFlight {
                group.addTask {
                    while true {
                        let i = next.value.add(1, ordering: .relaxed).oldValue
                        guard i < requests.count else { return }
                        _ = await replica.dispatcher.deliver(requests[i])
                    }
                }
            }
        }
    }
    let elapsed = (ContinuousClock.now - started).inSeconds
    let sent = handedOff.load(ordering: .relaxed)
    let sorted = holds.withLock { $0 }.sorted()
    func percentile(_ p: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }
    let padded = label.padding(toLength: 26, withPad: " ", startingAt: 0)
    print(
        padded
            + String(
                format: "%6d tokens in %6.2f s = %7.0f tokens/s   lock hold p50 %6.2f ms  p99 %6.2f ms  (%d batches)",
                sent, elapsed, Double(sent) / elapsed, percentile(0.5), percentile(0.99), sorted.count))
    let after = phaseTotals()
    let steps = ["select", "claim", "pace", "lock", "validate", "expo", "finalize", "unlock"].compactMap {
        phase -> String? in
        guard let end = after[phase] else { return nil }
        let start = before[phase] ?? (0, 0)
        let n = end.count - start.count
        return String(format: "%@ %.1f", phase, n > 0 ? (end.sum - start.sum) / n * 1000 : 0)
    }
    print("    mean ms per batch step: " + steps.joined(separator: ", "))
}

/// This process's peak resident set (`VmHWM`, kB); `resetPeak` starts a new peak (`/proc/self/clear_refs` 5).
func peakRSSKilobytes(resetPeak: Bool = false) -> Int {
    if resetPeak { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
}

/// The fan-out's scale curve (`BENCH_SCALE="1000 10000 100000"`): for each size, the table grows to that many
/// tokens and one dispatcher replica (pace lifted) delivers one request per 100 of them; prints tokens/s, the
/// Postgres statements per token (`pg_stat_statements`, so Postgres must preload it) and the process's peak RSS
/// during the delivery (dispatcher and Expo fake together).
func scaleCurve(_ sizes: [Int]) async throws {
    try await seedPool.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    print("push scale curve: 1 replica, pace lifted, \(requestsInFlight) requests in flight, handoffs \(handoffs)")
    var seeded = 0
    for size in sizes where size > seeded {
        try await seedTokens(seeded + 1, size)
        seeded = size
        let one = try await replicas(1, pace: 0)
        _ = try await seedPool.query("SELECT pg_stat_statements_reset()")
        _ = peakRSSKilobytes(resetPeak: true)
        await run("\(size) tokens", replicas: one, tokens: size)
        let peak = peakRSSKilobytes()
        // This tool's own statements (the reset, this read) are left out by their text.
        let statements = try await seedPool.query(
            """
            SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query FROM pg_stat_statements
            WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC
            """)
        let calls = statements.compactMap { $0.int("calls") }.reduce(0, +)
        print(
            String(
                format: "    Postgres %ld statements, %.3f per token; peak RSS %.1f MB", calls,
                Double(calls) / Double(size), Double(peak) / 1024))
        for row in statements.prefix(4) { print("      \(row.int("calls") ?? 0) × \(row.string("query") ?? "")") }
        for r in one { await r.close() }
    }
}

if env.get("BENCH_DIAG") == "1" {
    let pool = try await PostgresPool.make(url: postgresURL, size: 1, logger: logger)
    for label in ["select 1", "select 1 (params)"] {
        let t0 = ContinuousClock.now
        for i in 0..<200 {
            if label == "select 1" {
                _ = try await pool.query("SELECT 1")
            } else {
                _ = try await pool.query("SELECT \(i)::int")
            }
        }
        print(label, (ContinuousClock.now - t0) / 200)
    }
    try await pool.withConnection { conn in
        let t0 = ContinuousClock.now
        for i in 0..<200 { _ = try await conn.query("SELECT \(i)::int") }
        print("same connection", (ContinuousClock.now - t0) / 200)
    }
}
if let sizes = env.get("BENCH_SCALE") {
    try await scaleCurve(sizes.split(separator: " ").compactMap { Int($0) })
} else {
    try await seedTokens(1, max(tokenCount, pacedTokens))
    print(
        "push bench: \(tokenCount) tokens unpaced, \(pacedTokens) paced; 100 per request; \(requestsInFlight) requests in flight "
            + "per replica; PUSH_MAX_CONCURRENT_HANDOFFS=\(handoffs)")
    let one = try await replicas(1, pace: 0)
    await run("1 replica, pace lifted", replicas: one, tokens: tokenCount)
    for r in one { await r.close() }
    let three = try await replicas(3, pace: 0)
    await run("3 replicas, pace lifted", replicas: three, tokens: tokenCount)
    for r in three { await r.close() }
    let paced = try await replicas(3, pace: 600)
    await run("3 replicas, pace 600/s", replicas: paced, tokens: pacedTokens)
    for r in paced { await r.close() }
}

try await seedPool.withConnection { try await $0.simpleQuery("DROP SCHEMA \(schema) CASCADE") }
await seedPool.close()
await expo.shutdown()
