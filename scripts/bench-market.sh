#!/usr/bin/env bash
# Cached market-data pages through the whole system (gateway → Kafka → Rating → Redis → Kafka → gateway) at a fixed
# rate: GET /v1/financials/ratios and GET /v1/options/chain, each answered once from the loopback Massive fake and
# then from Rating's shared Redis cache (`X-Market-Data-Cache: hit`). The chain's answers live 15 s, so a run longer
# than that also refreshes them under load (one upstream call per expiry). p50/p90/p99 from LoadGen.
# Usage: scripts/bench-market.sh [rate/s (default 200)] [seconds (default 20)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (SwiftPM scratch path, default .build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
RATE=${1:-200}
DURATION=${2:-20}
DIR=.stack/bench-market

bench_build .stack/bench-market-build.log DevBroker Gateway Rating LoadGen BenchNearbyRating
echo "== $BENCH_CONFIG build"
bench_stack "$DIR"

# Loopback upstream fakes with no added latency; Massive is the primary, as in production.
"$BIN/BenchNearbyRating" fakes 0 "$DIR/fakes.env" 2>"$DIR/fakes.log" & pids+=($!)
for _ in $(seq 1 100); do [ -s "$DIR/fakes.env" ] && break; sleep 0.05; done
# shellcheck disable=SC1091
source "$DIR/fakes.env"
export MARKET_DATA_PRIMARY=massive UNDERLYING_URL=off

PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) "$BIN/Rating" 2>"$DIR/rating.log" & pids+=($!)
# Limits off: the market-data limiter (60 per 60 s per client) would answer most of a load test 429.
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench-market GATEWAY_LIMITS=off "$BIN/Gateway" \
  2>"$DIR/gateway.log" & pids+=($!)
bench_wait_ready "$PORT"

BASE="http://127.0.0.1:$PORT"
for path in "/v1/financials/ratios?ticker=MSFT&limit=5" "/v1/options/chain?underlying=AAPL&limit=50"; do
  # The first answer fills the cache (the services may still be joining their group: retry for 15 s).
  for _ in $(seq 1 30); do curl -fs -o /dev/null "$BASE$path" && break; sleep 0.5; done
  cache=$(curl -fs -D - -o "$DIR/one.json" "$BASE$path" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-market-data-cache" { print $2 }')
  echo "== $path: $(wc -c <"$DIR/one.json") bytes of JSON, X-Market-Data-Cache: ${cache:-none}"
  "$BIN/LoadGen" "$BASE$path" "$RATE" "$DURATION" --label "GET ${path%%\?*}, cached, ${RATE}/s"
done
