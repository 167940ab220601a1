#!/usr/bin/env bash
# Briefs through the whole system (gateway → Kafka → Briefs → Kafka → gateway), upstreams faked on loopback:
#   GET /v1/watchlist and a cached GET /v1/watchlist/brief at a fixed rate (open loop): p50/p99;
#   the 7 am run ("generate the daily briefs") for N seeded users with the model fake at a fixed latency:
#   minutes until every user's daily_brief push request is on the push topic, with 1 and then 2 Briefs replicas.
# Usage: scripts/bench-briefs.sh [rate (default 500)] [seconds (default 10)] [users (default 10000)] [model ms (default 50)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (SwiftPM scratch path, default .build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
RATE=${1:-500}
DURATION=${2:-10}
USERS=${3:-10000}
LATENCY=${4:-50}

bench_build .stack/bench-briefs-build.log DevBroker Gateway Briefs LoadGen BenchBriefs
DIR=.stack/bench-briefs
bench_stack "$DIR"

"$BIN/BenchBriefs" fakes "$LATENCY" "$DIR/fakes.env" 2>"$DIR/fakes.log" & pids+=($!)
for _ in $(seq 1 100); do [ -s "$DIR/fakes.env" ] && break; sleep 0.05; done
# shellcheck disable=SC1090
source "$DIR/fakes.env"

PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) "$BIN/Briefs" 2>"$DIR/briefs-1.log" & pids+=($!)
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench-briefs GATEWAY_LIMITS=off AUTH_RETURN_CODE=1 \
  "$BIN/Gateway" 2>"$DIR/gateway.log" & pids+=($!)
BASE="http://127.0.0.1:$PORT"
bench_wait_ready "$PORT"

# One signed-in user with three tickers and a brief already written (so the brief series is the cached path).
EMAIL="bench-$RANDOM@example.com"
CODE=$(curl -fs -H 'Content-Type: application/json' -d "{\"email\":\"$EMAIL\"}" "$BASE/v1/auth/session" \
  | sed -n 's/.*"devCode":"\([^"]*\)".*/\1/p')
TOKEN=$(curl -fs -H 'Content-Type: application/json' -d "{\"email\":\"$EMAIL\",\"code\":\"$CODE\"}" \
  "$BASE/v1/auth/session/verify" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
AUTH="Authorization: Bearer $TOKEN"
for _ in $(seq 1 200); do curl -fs -H "$AUTH" "$BASE/v1/watchlist" >/dev/null 2>&1 && break; sleep 0.2; done
for t in AAPL MSFT NVDA; do
  curl -fs -H "$AUTH" -H 'Content-Type: application/json' -d "{\"ticker\":\"$t\"}" "$BASE/v1/watchlist/add" >/dev/null
done
curl -fs -H "$AUTH" "$BASE/v1/watchlist/brief" >/dev/null

echo "== $RATE req/s for ${DURATION} s, $BENCH_CONFIG build, 1 Briefs replica"
"$BIN/LoadGen" "$BASE/v1/watchlist" "$RATE" "$DURATION" --header "$AUTH" --label "GET /v1/watchlist"
"$BIN/LoadGen" "$BASE/v1/watchlist/brief" "$RATE" "$DURATION" --header "$AUTH" --label "GET /v1/watchlist/brief (cached)"

echo "== 7 am run, $USERS users, model fake at ${LATENCY} ms"
"$BIN/BenchBriefs" seed "$USERS" r1
echo "1 Briefs replica:"
"$BIN/BenchBriefs" morning "$USERS" r1
ADMIN_PORT=$(stack_free_port) "$BIN/Briefs" 2>"$DIR/briefs-2.log" & pids+=($!)
sleep 10  # the second replica joins the group and takes half the partitions
"$BIN/BenchBriefs" seed "$USERS" r2
echo "2 Briefs replicas:"
"$BIN/BenchBriefs" morning "$USERS" r2
