import Foundation
import HTTPClient
import Runtime

/// Open-loop load generator: sends requests at a fixed rate (not waiting for answers, so slow answers cannot hide
/// queueing), then prints latency percentiles of all answers and, when some were not 200, of the 200s alone and of
/// the rest (how fast excess was refused). `--timeline S` also prints one line per S-second slice of send time
/// (for faults injected during the run). Usage:
///   LoadGen <url> <rate/s> <seconds> [--method POST] [--body-file F] [--header 'Name: value']... [--label text]
///           [--timeline seconds]
struct Options {
    var url = ""
    var rate = 100.0
    var seconds = 10.0
    var method = "GET"
    var body: [UInt8]?
    var headers: [(String, String)] = []
    var label = "load"
    var timeline: Double?

    static func parse(_ args: [String]) -> Options? {
        var o = Options()
        var positional: [String] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            func next() -> String? {
                i += 1
                return i < args.count ? args[i] : nil
            }
            switch a {
            case "--method": o.method = next() ?? "GET"
            case "--body-file":
                guard let path = next(), let data = FileManager.default.contents(atPath: path) else { return nil }
                o.body = Array(data)
            case "--header":
                guard let h = next(), let colon = h.firstIndex(of: ":") else { return nil }
                o.headers.append(
                    (String(h[..<colon]), h[h.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            case "--label": o.label = next() ?? o.label
            case "--timeline":
                guard let slice = next().flatMap(Double.init), slice > 0 else { return nil }
                o.timeline = slice
            default: positional.append(a)
            }
            i += 1
        }
        guard positional.count == 3, let rate = Double(positional[1]), let seconds = Double(positional[2]) else {
            return nil
        }
        o.url = positional[0]
        o.rate = rate
        o.seconds = seconds
        return o
    }
}

guard let options = Options.parse(Array(CommandLine.arguments.dropFirst())) else {
    print("usage: LoadGen <url> <rate/s> <seconds> [--method M] [--body-file F] [--header 'N: v'] [--label L]")
    exit(2)
}

let client = try HTTPClient.make(logger: Logger(label: "loadgen", level: .error), maxConnectionsPerHost: 2048)
let total = Int(options.rate * options.seconds)
let interval = Duration.seconds(1.0 / options.rate)
let start = ContinuousClock.now
/// One answer: when it was sent (seconds into the run), its latency (ms) and status (-1: no answer).
struct Result {
    let sentAt: Double
    let ms: Double
    let status: Int
}
let results = await withTaskGroup(of: Result.self) { group in
    for n in 0..<total {
        let due = start + interval * n
        try? await Task.sleep(until: due, clock: .continuous)
        group.addTask {
            let sent = ContinuousClock.now
            let status: Int
            do {
                status = try await client.execute(
                    HTTPClientRequest(
                        method: options.method, url: options.url, headers: options.headers, body: options.body,
                        timeout: .seconds(60))
                ).status
            } catch {
                status = -1
            }
            return Result(
                sentAt: (sent - start).inSeconds, ms: (ContinuousClock.now - sent).inMilliseconds, status: status)
        }
    }
    var all: [Result] = []
    for await r in group { all.append(r) }
    return all
}
let elapsed = (ContinuousClock.now - start).inSeconds

/// The p-quantile of sorted latencies (0 when none).
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
func statusText(_ results: [Result]) -> String {
    var statuses: [Int: Int] = [:]
    for r in results { statuses[r.status, default: 0] += 1 }
    return statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
}
let latencies = results.map(\.ms).sorted()
var line = String(
    format:
        "%@: %d requests in %.1f s (target %.0f/s) · p50 %.2f ms · p90 %.2f ms · p99 %.2f ms · max %.2f ms · statuses %@",
    options.label, results.count, elapsed, options.rate, percentile(latencies, 0.5), percentile(latencies, 0.9),
    percentile(latencies, 0.99), latencies.last ?? 0, statusText(results))
let ok = results.filter { $0.status == 200 }.map(\.ms).sorted()
if ok.count < results.count {
    let refused = results.filter { $0.status != 200 }.map(\.ms).sorted()
    line += String(
        format: " · 200s p50 %.2f ms p99 %.2f ms · others p50 %.2f ms p99 %.2f ms", percentile(ok, 0.5),
        percentile(ok, 0.99), percentile(refused, 0.5), percentile(refused, 0.99))
}
print(line)
if let slice = options.timeline {
    for index in 0..<Int((options.seconds / slice).rounded(.up)) {
        let from = Double(index) * slice
        let part = results.filter { $0.sentAt >= from && $0.sentAt < from + slice }
        let sorted = part.map(\.ms).sorted()
        print(
            String(
                format: "  t=%5.1f s: %4d sent · p50 %8.2f ms · p99 %8.2f ms · statuses %@", from, part.count,
                percentile(sorted, 0.5), percentile(sorted, 0.99), statusText(part)))
    }
}
client.shutdown()
