import Foundation
import HTTPClient
import Runtime

/// Open-loop load generator: sends requests at a fixed rate (not waiting for answers, so slow answers cannot hide
/// queueing), then prints latency percentiles. Usage:
///   LoadGen <url> <rate/s> <seconds> [--method POST] [--body-file F] [--header 'Name: value']... [--label text]
struct Options {
    var url = ""
    var rate = 100.0
    var seconds = 10.0
    var method = "GET"
    var body: [UInt8]?
    var headers: [(String, String)] = []
    var label = "load"

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

let client = try HTTPClient.make(logger: Logger(label: "loadgen", level: .error), maxConnectionsPerHost: 512)
let total = Int(options.rate * options.seconds)
let interval = Duration.seconds(1.0 / options.rate)
let start = ContinuousClock.now
let results = await withTaskGroup(of: (Double, Int).self) { group in
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
            return ((ContinuousClock.now - sent).inMilliseconds, status)
        }
    }
    var all: [(Double, Int)] = []
    for await r in group { all.append(r) }
    return all
}
let elapsed = (ContinuousClock.now - start).inSeconds
let latencies = results.map(\.0).sorted()
func percentile(_ p: Double) -> Double {
    latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
}
var statuses: [Int: Int] = [:]
for (_, s) in results { statuses[s, default: 0] += 1 }
print(
    String(
        format: "%@: %d requests in %.1f s (target %.0f/s) · p50 %.2f ms · p90 %.2f ms · p99 %.2f ms · max %.2f ms · statuses %@",
        options.label, results.count, elapsed, options.rate, percentile(0.5), percentile(0.9), percentile(0.99),
        latencies.last ?? 0, statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")))
client.shutdown()
