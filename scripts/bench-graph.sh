#!/usr/bin/env bash
# The company graph's cache hit through the whole system (gateway → Kafka → Research → Postgres → Kafka → gateway):
# GET /v1/graph/BNCH at a fixed rate after one miss has extracted and stored it, with the latency percentiles from
# LoadGen, the CPU-µs per request of each process (scripts/lib/cpu.sh) and the upstream calls the hits made, counted
# by the loopback fakes (Underlying's SEC citations, Exa, OpenRouter, SEC EDGAR; BenchNearbyRating graph-fakes).
# Usage: scripts/bench-graph.sh [rate/s (default 200)] [seconds (default 20)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (default .build); BENCH_BIN=<bin dir> uses binaries
# already built there (e.g. the test build's `swift build --show-bin-path`) instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
source scripts/lib/cpu.sh
RATE=${1:-200}
DURATION=${2:-20}
D=.stack/bench-graph

if [ -n "${BENCH_BIN:-}" ]; then
  stack_install
  BIN=$BENCH_BIN
  BENCH_CONFIG="binaries of $BIN"
else
  bench_build .stack/bench-graph-build.log DevBroker Gateway Research LoadGen BenchNearbyRating
fi
echo "== $BENCH_CONFIG build, $(nproc) cores"
bench_stack $D

"$BIN/BenchNearbyRating" graph-fakes $D/fakes.env $D/counts 2>$D/fakes.log & pids+=($!)
for _ in $(seq 1 100); do [ -s $D/fakes.env ] && [ -s $D/counts ] && break; sleep 0.05; done
# shellcheck disable=SC1091
source $D/fakes.env
counts() { tr '\n' ' ' <$D/counts; }
total() { awk '{ n += $2 } END { print n + 0 }' $D/counts; }

PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) "$BIN/Research" 2>$D/research.log & pids+=($!); RESEARCH_PID=$!
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench-graph GATEWAY_LIMITS=off "$BIN/Gateway" \
  2>$D/gateway.log & pids+=($!); GATEWAY_PID=$!
bench_wait_ready "$PORT"
URL=http://127.0.0.1:$PORT/v1/graph/BNCH

# The miss: extracted once (a caller with an identity), stored; retried while the command group settles.
for _ in $(seq 1 60); do
  status=$(curl -s -o $D/miss.json -w '%{http_code}' -H 'X-Device-Id: bench-graph' "$URL" || true)
  [ "$status" = 200 ] && break
  sleep 0.5
done
[ "$status" = 200 ] || { echo "the miss answered $status: $(cat $D/miss.json)"; exit 1; }
edges=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["count"])' $D/miss.json)
echo "== the miss: $edges edges stored, $(wc -c <$D/miss.json) bytes of JSON; upstream calls so far: $(counts)"
[ "$edges" -ge 4 ] || { echo "fewer than 4 edges: not a fresh 30-day graph"; exit 1; }
sleep 0.5
before=$(total)

BROKER_PID=$(cat $D/broker.pid)
REDIS_PID=$(cat $D/redis.pid)
cpu_measure "gateway=$GATEWAY_PID research=$RESEARCH_PID broker=$BROKER_PID redis=$REDIS_PID" \
  "GET /v1/graph/BNCH, cached, ${RATE}/s" \
  "$BIN/LoadGen" "$URL" "$RATE" "$DURATION" --label "GET /v1/graph/BNCH, cached graph (5 edges), ${RATE}/s"
sleep 0.5
after=$(total)
echo "== upstream calls during the cache hits: $((after - before)) (fakes: $(counts))"
[ "$after" -eq "$before" ] || { echo "a cache hit called an upstream"; exit 1; }
