#!/usr/bin/env bash
# Scale curves of Briefs' batch work (issue 32, item 4): the 7 am daily briefs, the 5-minute movers scan and the
# price-alert scan (08:00 and 16:00) over N synthetic users, upstreams faked on loopback (Massive quotes that move
# +11 % so every ticker is a mover; OpenRouter at a fixed latency). For each job and size, on a fresh Briefs
# process: the wall time from the scan's publish to its last push request on the push topic, the Postgres
# statements per user (pg_stat_statements) and the Briefs process's peak RSS (VmHWM).
# Usage: scripts/bench-scale.sh [sizes (default "1000 10000 100000")] [jobs (default "movers alerts daily")]
#        [model ms (default 50)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (SwiftPM scratch path, default .build).
# The movement scan's curve is scripts/bench-movement.sh; the push fan-out's is scripts/bench-push.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
SIZES=${1:-1000 10000 100000}
JOBS=${2:-movers alerts daily}
LATENCY=${3:-50}

bench_build .stack/bench-scale-build.log DevBroker Briefs BenchBriefs
export STACK_PG_EXTRA_OPTIONS="-c shared_preload_libraries=pg_stat_statements"
DIR=.stack/bench-scale
bench_stack "$DIR"

"$BIN/BenchBriefs" fakes "$LATENCY" "$DIR/fakes.env" 90 2>"$DIR/fakes.log" & pids+=($!)
for _ in $(seq 1 100); do [ -s "$DIR/fakes.env" ] && break; sleep 0.05; done
# shellcheck disable=SC1090
source "$DIR/fakes.env"

echo "== $BENCH_CONFIG build, model fake at ${LATENCY} ms, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run=0
for job in $JOBS; do
  for size in $SIZES; do
    run=$((run + 1))
    ADMIN=$(stack_free_port)
    ADMIN_PORT=$ADMIN "$BIN/Briefs" 2>"$DIR/briefs-$run.log" &
    briefs=$!
    pids+=("$briefs")
    bench_wait_ready "$ADMIN"
    "$BIN/BenchBriefs" scale-seed "$size" "s$run"
    echo "-- $job, $size users (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    "$BIN/BenchBriefs" "$job" "$size" "s$run"
    echo "   Briefs peak RSS: $(awk '/VmHWM/ {print $2, $3}' "/proc/$briefs/status")"
    kill -TERM "$briefs"
    wait "$briefs" 2>/dev/null || true
  done
done
