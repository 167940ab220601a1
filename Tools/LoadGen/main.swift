import Foundation
import Runtime

/// Open-loop load generator: sends requests at a fixed rate (not waiting for answers, so slow answers cannot hide
/// queueing; `OpenLoop`), then prints latency percentiles of all answers and, when some were not 200, of the 200s
/// alone and of the rest (how fast excess was refused), and how far the sends fell behind their schedule. `--timeline S` also prints one line per S-second slice of send time
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
        guard positional.count == 3, let rate = Double(positional[1]), let seconds = Double(positional[2]),
            rate > 0, rate <= 1_000_000, seconds > 0, seconds <= 86_400
        else {
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

guard let target = Target.make(url: options.url, method: options.method, headers: options.headers, body: options.body)
else {
    print("LoadGen: cannot resolve \(options.url) (plain http:// URLs only)")
    exit(2)
}
let total = Int(options.rate * options.seconds)
let start = ContinuousClock.now
let (results, maxLagMs) = OpenLoop(target: target, rate: options.rate, total: total, timeout: .seconds(60)).run()
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
line += String(format: " · send lag max %.2f ms", maxLagMs)
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
