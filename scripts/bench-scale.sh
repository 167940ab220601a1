#!/usr/bin/env bash
# Scale curves of Briefs' batch work (issue 32, item 4): the 7 am daily briefs, the 5-minute movers scan, the
# price-alert scan (08:00 and 16:00) and the hourly movement scan over N synthetic users or devices, upstreams faked
# on loopback (Massive quotes that move +11 % so every ticker is a mover; OpenRouter at a fixed latency; for the
# movement scan Nominatim, Overpass, Exa and OpenRouter at that latency, every device moved and at its own point).
# The fakes count requests without keeping them. For each job and size, on a fresh Briefs process: the wall time
# from the scan's publish to its last push request on the push topic, the Postgres statements per user or device
# (pg_stat_statements) and the Briefs process's peak RSS (VmHWM).
# Usage: scripts/bench-scale.sh [sizes (default "1000 10000 100000")]
#        [jobs (default "movers alerts daily"; also "movement")] [upstream ms (default 50)]
# Env: BENCH_CONFIG (release|debug, default release), SCRATCH_PATH (SwiftPM scratch path, default .build).
# The movement scan with two replicas is scripts/bench-movement.sh; the push fan-out's curve is
# BENCH_SCALE="1000 10000 100000" scripts/bench-push.sh.
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
market_fakes=$!
"$BIN/BenchBriefs" local-fakes "$LATENCY" "$DIR/local-fakes.env" 2>"$DIR/local-fakes.log" & pids+=($!)
local_fakes=$!
# cpu_seconds PID: the process's user + system CPU so far (the figure a shared box's load does not inflate).
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$1/stat"; }
for _ in $(seq 1 100); do [ -s "$DIR/fakes.env" ] && [ -s "$DIR/local-fakes.env" ] && break; sleep 0.05; done

echo "== $BENCH_CONFIG build, model fake at ${LATENCY} ms, load average $(cut -d' ' -f1-3 /proc/loadavg)"
run=0
# Each movement run's devices start past the last run's points, so no brief is a cache hit from an earlier size.
lat=-80
for job in $JOBS; do
  for size in $SIZES; do
    run=$((run + 1))
    ADMIN=$(stack_free_port)
    fakes=fakes.env fakes_pid=$market_fakes
    [ "$job" != movement ] || fakes=local-fakes.env fakes_pid=$local_fakes
    # shellcheck disable=SC1090
    (source "$DIR/$fakes" && ADMIN_PORT=$ADMIN exec "$BIN/Briefs") 2>"$DIR/briefs-$run.log" &
    briefs=$!
    pids+=("$briefs")
    bench_wait_ready "$ADMIN"
    echo "-- $job, $size (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    if [ "$job" = movement ]; then
      "$BIN/BenchBriefs" devices "$size" "m$run" "$lat"
      "$BIN/BenchBriefs" movement "$size" "m$run"
      lat=$(awk -v lat="$lat" -v n="$size" 'BEGIN { print lat + int(n / 100) * 0.05 + 1 }')
    else
      "$BIN/BenchBriefs" scale-seed "$size" "s$run"
      "$BIN/BenchBriefs" "$job" "$size" "s$run"
    fi
    echo "   Briefs peak RSS: $(awk '/VmHWM/ {print $2, $3}' "/proc/$briefs/status"), CPU $(cpu_seconds "$briefs") s;" \
      "fakes peak RSS: $(awk '/VmHWM/ {print $2, $3}' "/proc/$fakes_pid/status")"
    kill -TERM "$briefs"
    wait "$briefs" 2>/dev/null || true
  done
done
