import Foundation
import HTTPClient
import HTTPServer
import Runtime

/// Benchmark helper for `scripts/bench-nearby-rating.sh`.
///
/// `BenchNearbyRating fakes <latency-ms> <env-file>` serves loopback fakes of Overpass, Photon, Yahoo/Massive,
/// Jev, the Underlying service and SEC EDGAR, each answering after a fixed latency, writes the environment that
/// points the services at them to `<env-file>`, and runs until killed.
///
/// `BenchNearbyRating graph-fakes <env-file> <counts-file>` serves the company graph's upstreams (Underlying's SEC
/// citations, Exa, OpenRouter, SEC EDGAR), each counting its requests into `<counts-file>` (`GraphFakes.swift`).
///
/// `BenchNearbyRating run <gateway-url> <samples>` measures, one request at a time: nearby on cold tiles (every
/// request a new geohash-6 tile), the same requests again on warm tiles, rating on new tickers (computed), and
/// the same tickers again (cached). Prints p50/p99 per series.
let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    print(
        "usage: BenchNearbyRating fakes <latency-ms> <env-file> | graph-fakes <env-file> <counts-file>"
            + " | run <gateway-url> <samples>")
    exit(2)
}

switch arguments[1] {
case "fakes":
    let latency = Duration.milliseconds(Int64(arguments[2]) ?? 50)
    do {
        try await Bench.runFakes(latency: latency, envFile: arguments[3])
    } catch {
        print("fakes failed: \(error)")
        exit(1)
    }
case "graph-fakes":
    do {
        try await Bench.runGraphFakes(envFile: arguments[2], countsFile: arguments[3])
    } catch {
        print("graph fakes failed: \(error)")
        exit(1)
    }
case "run":
    do {
        try await Bench.runBenchmark(base: arguments[2], samples: Int(arguments[3]) ?? 200)
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
default:
    print("unknown mode \(arguments[1])")
    exit(2)
}
