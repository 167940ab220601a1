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
source scripts/lib/bench.sh
DEVICES=${1:-10000}
LATENCY=${2:-50}

bench_build .stack/bench-movement-build.log DevBroker Briefs BenchBriefs
export STACK_PG_EXTRA_OPTIONS="-c shared_preload_libraries=pg_stat_statements"
DIR=.stack/bench-movement
bench_stack "$DIR"

"$BIN/BenchBriefs" local-fakes "$LATENCY" "$DIR/fakes.env" 2>"$DIR/fakes.log" & pids+=($!)
for _ in $(seq 1 100); do [ -s "$DIR/fakes.env" ] && break; sleep 0.05; done
# shellcheck disable=SC1090
source "$DIR/fakes.env"

ADMIN=$(stack_free_port)
ADMIN_PORT=$ADMIN "$BIN/Briefs" 2>"$DIR/briefs-1.log" & pids+=($!)
bench_wait_ready "$ADMIN"

echo "== movement tick, $DEVICES devices that moved, upstream fakes at ${LATENCY} ms, $BENCH_CONFIG build"
"$BIN/BenchBriefs" devices "$DEVICES" m1 10
echo "1 Briefs replica:"
"$BIN/BenchBriefs" movement "$DEVICES" m1
ADMIN=$(stack_free_port)
ADMIN_PORT=$ADMIN "$BIN/Briefs" 2>"$DIR/briefs-2.log" & pids+=($!)
bench_wait_ready "$ADMIN"
sleep 10  # the second replica joins the group and takes half the partitions
"$BIN/BenchBriefs" devices "$DEVICES" m2 40
echo "2 Briefs replicas:"
"$BIN/BenchBriefs" movement "$DEVICES" m2
