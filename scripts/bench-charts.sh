#!/usr/bin/env bash
# Chart cost: milliseconds per PNG for each chart type we draw (cairo, one thread, release build); then
# GET /v1/chart/regression through the whole system (gateway → Kafka → Rating → Kafka → gateway) at a fixed rate
# with the price history (and so the drawing made from it) cached in Redis; then fresh drawings one after another
# (each request a new ticker: loopback history fetch + drawing + caching), p50/p99 from curl.
# Usage: scripts/bench-charts.sh [rate/s (default 50)] [seconds (default 20)] [renders per type (default 40)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (SwiftPM scratch path, default .build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
RATE=${1:-50}
DURATION=${2:-20}
RENDERS=${3:-40}

bench_build .stack/bench-charts-build.log DevBroker Gateway Rating LoadGen BenchNearbyRating BenchCharts

echo "== chart rendering, $BENCH_CONFIG build"
"$BIN/BenchCharts" "$RENDERS"

bench_stack .stack/bench-charts

# Loopback market-data fakes (no added latency: the history is cached after the first request anyway).
"$BIN/BenchNearbyRating" fakes 0 .stack/bench-charts/fakes.env 2>.stack/bench-charts/fakes.log & pids+=($!)
for _ in $(seq 1 100); do [ -s .stack/bench-charts/fakes.env ] && break; sleep 0.05; done
# shellcheck disable=SC1091
source .stack/bench-charts/fakes.env
# Our own drawing only: the Underlying Analyzer is switched off.
export UNDERLYING_URL=off

PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) "$BIN/Rating" 2>.stack/bench-charts/rating.log & pids+=($!)
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench-charts GATEWAY_LIMITS=off "$BIN/Gateway" \
  2>.stack/bench-charts/gateway.log & pids+=($!)
bench_wait_ready "$PORT"
sleep 6
URL="http://127.0.0.1:$PORT/v1/chart/regression?ticker=MAPV&period=3mo"
curl -fs "$URL" -o .stack/bench-charts/warm.json || { echo "warm-up request failed"; exit 1; }
echo "== one reply: $(wc -c <.stack/bench-charts/warm.json) bytes of JSON"
"$BIN/LoadGen" "$URL" "$RATE" "$DURATION" --label "GET /v1/chart/regression, cached history, ${RATE}/s"

FRESH=${FRESH_SAMPLES:-40}
for i in $(seq 1 "$FRESH"); do
  curl -s -o /dev/null -w '%{http_code} %{time_total}\n' \
    "http://127.0.0.1:$PORT/v1/chart/regression?ticker=F$(printf '%04d' "$i")&period=1y"
done | awk '$1 == 200 { printf "%.3f\n", $2 * 1000 }' | sort -n | awk '{ t[++n] = $1 } END {
  if (n == 0) { print "fresh drawings: no 200s"; exit 1 }
  printf "GET /v1/chart/regression, fresh drawing per request (new ticker each, sequential): %d × 200 · p50 %.1f ms · p99 %.1f ms\n", n, t[int(n * 0.5 + 0.999)], t[int(n * 0.99 + 0.999)] }'
