#!/usr/bin/env bash
# Nearby and rating latency through the whole system (gateway → Kafka → service → Kafka → gateway), with every
# upstream faked on loopback at a fixed latency (Overpass, Photon, Yahoo/Massive, Jev, Underlying):
#   nearby p50/p99 on cold tiles (each request a new geohash-6 tile: cascade + join) and on warm tiles (Redis);
#   rating p50/p99 uncached (evidence in parallel + one Jev call) and cached (Redis).
# Requests go one at a time, so the figures are latencies, not throughput.
# Usage: scripts/bench-nearby-rating.sh [samples (default 200)] [fake latency ms (default 50)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (SwiftPM scratch path, default .build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
SAMPLES=${1:-200}
LATENCY=${2:-50}

bench_build .stack/bench-nr-build.log DevBroker Gateway Nearby Rating BenchNearbyRating
bench_stack .stack/bench-nr

"$BIN/BenchNearbyRating" fakes "$LATENCY" .stack/bench-nr/fakes.env 2>.stack/bench-nr/fakes.log & pids+=($!)
for _ in $(seq 1 100); do [ -s .stack/bench-nr/fakes.env ] && break; sleep 0.05; done
# shellcheck disable=SC1091
source .stack/bench-nr/fakes.env

PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) "$BIN/Nearby" 2>.stack/bench-nr/nearby.log & pids+=($!)
ADMIN_PORT=$(stack_free_port) "$BIN/Rating" 2>.stack/bench-nr/rating.log & pids+=($!)
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench-nr GATEWAY_LIMITS=off "$BIN/Gateway" \
  2>.stack/bench-nr/gateway.log & pids+=($!)
bench_wait_ready "$PORT"
# Let the services join their consumer groups, then warm the connections with one request of each kind.
sleep 6
curl -fs "http://127.0.0.1:$PORT/v1/nearby?lat=1.5&lng=1.5" >/dev/null || true
curl -fs "http://127.0.0.1:$PORT/v1/rating/WARM" >/dev/null || true

echo "== $SAMPLES sequential requests per series, upstream fakes at ${LATENCY} ms, $BENCH_CONFIG build"
"$BIN/BenchNearbyRating" run "http://127.0.0.1:$PORT" "$SAMPLES"
