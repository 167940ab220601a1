#!/usr/bin/env bash
# The hourly movement tick (briefs.movement.scan.v1) over N opted-in devices that all moved, upstreams faked on
# loopback (Nominatim, Overpass, Exa, OpenRouter) at a fixed latency: minutes until every device's local_brief push
# request is on the push topic, and the Postgres statements per device (pg_stat_statements), with 1 and then 2
# Briefs replicas. Each run's devices sit at their own points, so every brief is written cold.
# Usage: scripts/bench-movement.sh [devices (default 10000)] [upstream ms (default 50)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (SwiftPM scratch path, default .build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
DEVICES=${1:-10000}
LATENCY=${2:-50}
CONFIG=${BENCH_CONFIG:-release}
SCRATCH=${SCRATCH_PATH:-.build}

stack_install
mkdir -p .stack
for product in DevBroker Briefs BenchBriefs; do
  swift build -c "$CONFIG" --scratch-path "$SCRATCH" --product "$product" >.stack/bench-movement-build.log 2>&1 \
    || { tail -40 .stack/bench-movement-build.log; exit 1; }
done
BIN=$(swift build -c "$CONFIG" --scratch-path "$SCRATCH" --show-bin-path)
export MAPVEST_ENV=dev LOG_LEVEL=warning STACK_PG_EXTRA_OPTIONS="-c shared_preload_libraries=pg_stat_statements"
unset KAFKA_BROKERS POSTGRES_URL REDIS_URL
DIR=.stack/bench-movement
rm -rf "$DIR"
mkdir -p "$DIR"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  stack_stop
}
trap cleanup EXIT
stack_start "$DIR" "$BIN"

"$BIN/BenchBriefs" local-fakes "$LATENCY" "$DIR/fakes.env" 2>"$DIR/fakes.log" & pids+=($!)
for _ in $(seq 1 100); do [ -s "$DIR/fakes.env" ] && break; sleep 0.05; done
# shellcheck disable=SC1090
source "$DIR/fakes.env"

ADMIN=$(stack_free_port)
ADMIN_PORT=$ADMIN "$BIN/Briefs" 2>"$DIR/briefs-1.log" & pids+=($!)
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

echo "== movement tick, $DEVICES devices that moved, upstream fakes at ${LATENCY} ms, $CONFIG build"
"$BIN/BenchBriefs" devices "$DEVICES" m1 10
echo "1 Briefs replica:"
"$BIN/BenchBriefs" movement "$DEVICES" m1
ADMIN=$(stack_free_port)
ADMIN_PORT=$ADMIN "$BIN/Briefs" 2>"$DIR/briefs-2.log" & pids+=($!)
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 10  # the second replica joins the group and takes half the partitions
"$BIN/BenchBriefs" devices "$DEVICES" m2 40
echo "2 Briefs replicas:"
"$BIN/BenchBriefs" movement "$DEVICES" m2
