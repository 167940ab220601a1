#!/usr/bin/env bash
# Does the local stack stay fast with use? (docs/BENCHMARKS.md, "The dev broker ages"; issue 33.) Starts the whole
# stack as a user gets it (scripts/run-local.sh: every service; the gateway with its admission limit, without the
# per-client limits: GATEWAY_LIMITS=off) on free ports under .stack/bench-aging, then prints one table:
#   idle CPU-s per second of the dev broker and of all services together (IDLE_SECONDS of /proc/<pid>/stat), the
#   first request's round trip after that idle spell, and POST /v1/resolve-comparable at RATE/s (LoadGen): p50,
#   p99 and the share of 503s,
# for: the fresh stack; after AGING_REQUESTS answered requests offered at AGING_RATE/s; and right after a
# BURST_SECONDS burst at twice the fresh peak (an overload), RATE/s again for RECOVERY_SECONDS, one-second slices:
# the second from which it is served with no 503 (the goal: within 10 s). The fresh peak is the highest of
# PEAK_RATES served with no 503 and at least 99 % 200s (or PEAK_RATE when given). After the table, each idle spell's
# CPU per process and per thread kind (librdkafka's rdk:main, rdk:broker, rdk:mock; the Swift pool's Dispatch
# threads), from /proc/<pid>/task/*/stat.
#
#   scripts/bench-aging.sh [seconds per measurement (default 10)]
#   env RATE (200), AGING_REQUESTS (100000), AGING_RATE (the fresh peak), PEAK_RATES ("300 400 500 600 800"),
#   PEAK_RATE (skip the search), BURST_SECONDS (15), RECOVERY_SECONDS (10), IDLE_SECONDS (30),
#   MAPVEST_BIN_DIR (use these binaries; default: a release build), DEV_BROKER_RETENTION_S (the dev broker's
#   retention; 0 shows the broker without it), KAFKA_IDLE_FETCH_MAX_GAP_MS (0: consumers fetch back to back when
#   idle, as before the idle pacer), KAFKA_IDLE_FETCH_BACKGROUND_MAX_GAP_MS (the same for consumers off a request's
#   path, docs/decisions/0057-background-consumers-probe-seldom.md), BENCH_AGING_DIR (the run's directory, default .stack/bench-aging: two runs
#   side by side, e.g. a setting and its baseline, see the same load on a shared box)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/cpu.sh
DURATION=${1:-10}
RATE=${RATE:-200}
AGING_REQUESTS=${AGING_REQUESTS:-100000}
PEAK_RATES=${PEAK_RATES:-300 400 500 600 800}
BURST_SECONDS=${BURST_SECONDS:-15}
RECOVERY_SECONDS=${RECOVERY_SECONDS:-10}
IDLE_SECONDS=${IDLE_SECONDS:-30}

stack_install
mkdir -p .stack
if [ -z "${MAPVEST_BIN_DIR:-}" ]; then
  swift build -c release >.stack/bench-aging-build.log 2>&1 || { tail -40 .stack/bench-aging-build.log; exit 1; }
  MAPVEST_BIN_DIR=$(swift build -c release --show-bin-path)
fi
BIN=$MAPVEST_BIN_DIR
D=${BENCH_AGING_DIR:-.stack/bench-aging}
rm -rf $D
mkdir -p $D
PORT=$(stack_free_port)
ADMIN_PORT_BASE=$(stack_free_port)
unset KAFKA_BROKERS POSTGRES_URL REDIS_URL
# The whole stack in the background, in a session of its own; SIGTERM to run-local.sh stops all of it.
GATEWAY_LIMITS=off LOG_LEVEL=warning LOG_FORMAT=json MAPVEST_BIN_DIR=$BIN MAPVEST_LOCAL_DIR=$D/stack PORT=$PORT \
  ADMIN_PORT_BASE=$ADMIN_PORT_BASE setsid scripts/run-local.sh >$D/run-local.log 2>&1 &
STACK_PID=$!
cleanup() {
  kill -TERM "$STACK_PID" 2>/dev/null || true
  wait "$STACK_PID" 2>/dev/null || true
}
trap cleanup EXIT
URL=http://127.0.0.1:$PORT
for _ in $(seq 1 600); do curl -fs "$URL/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fs "$URL/readyz" >/dev/null || { echo "the stack did not become ready; see $D/run-local.log"; exit 1; }
echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (a shared box: other work disturbs latency)"
echo "== dev broker retention: ${DEV_BROKER_RETENTION_S:-30} s (DEV_BROKER_RETENTION_S; 0 = none)"
echo "== idle fetch pacer: longest gap ${KAFKA_IDLE_FETCH_MAX_GAP_MS:-100} ms (KAFKA_IDLE_FETCH_MAX_GAP_MS; 0 = off)," \
  "off a request's path ${KAFKA_IDLE_FETCH_BACKGROUND_MAX_GAP_MS:-1000} ms (KAFKA_IDLE_FETCH_BACKGROUND_MAX_GAP_MS)"

echo '{"brand":"Starbucks"}' >$D/comparable.json
comparable() { # RATE SECONDS LABEL
  "$BIN/LoadGen" "$URL/v1/resolve-comparable" "$1" "$2" --method POST --body-file $D/comparable.json \
    --header "Content-Type: application/json" --label "$3"
}
for _ in $(seq 1 60); do grep -q ' 200×10' <<<"$(comparable 5 2 warm-up)" && break; done

# count STATUS OUTPUT: how many answers had STATUS in LoadGen's first line.
count() { head -1 <<<"$2" | grep -oE " $1×[0-9]+" | grep -oE '[0-9]+$' || echo 0; }
# first_request: milliseconds of one request's round trip (after an idle spell: how fast the stack wakes up).
first_request() {
  curl -s -o /dev/null -w '%{time_total}' -X POST -H 'Content-Type: application/json' \
    --data-binary @$D/comparable.json "$URL/v1/resolve-comparable" | awk '{ printf "%.1f ms", $1 * 1000 }'
}
# thread_ticks: a "time <seconds>" line, then "process thread-kind tid ticks" for every thread of the broker and of
# each service (one awk per process, so the snapshot is quick; thread kinds: librdkafka's rdk:main, rdk:broker (one
# per broker connection), rdk:mock, and the rest by name, digits dropped).
thread_ticks() {
  local f
  echo "time $(date +%s.%N)"
  for f in $D/stack/broker.pid $D/stack/pids/*.pid; do
    awk -v name="$(basename "$f" .pid)" '{
      lp = index($0, "("); rp = 0
      for (i = length($0); i > lp; i--) if (substr($0, i, 1) == ")") { rp = i; break }
      kind = substr($0, lp + 1, rp - lp - 1); gsub(/ /, "_", kind); sub(/[0-9]+$/, "", kind)
      if (kind ~ /^rdk:broker/) kind = "rdk:broker"
      split(substr($0, rp + 2), field, " ")
      print name, kind, $1, field[12] + field[13]
    }' /proc/"$(cat "$f")"/task/*/stat 2>/dev/null || true
  done
}
# idle_breakdown BEFORE AFTER LABEL: CPU-s per second between the two snapshots per process, and per thread kind
# within it, appended to $D/idle-breakdown.txt (threads that appeared or ended in between are left out).
idle_breakdown() {
  awk -v t="$CPU_TICKS_PER_S" -v label="$3" '
    $1 == "time" { if (NR == FNR) t0 = $2; else t1 = $2; next }
    NR == FNR { before[$1 " " $2 " " $3] = $4; next }
    ($1 " " $2 " " $3) in before { d = $4 - before[$1 " " $2 " " $3]; proc[$1] += d; kind[$1 " " $2] += d }
    END {
      n = t1 - t0
      printf "== idle breakdown, %s (CPU-s per second over %.1f s)\n", label, n
      for (p in proc) {
        line = sprintf("%-16s %.4f:", p, proc[p] / t / n)
        for (k in kind) { split(k, a, " "); if (a[1] == p && kind[k] > 0) line = line sprintf(" %s %.4f", a[2], kind[k] / t / n) }
        print line | "sort"
      }
    }' "$1" "$2" >>$D/idle-breakdown.txt
}
# idle_cpu LABEL: "broker/services" CPU-s per second over IDLE_SECONDS, no requests (services: every replica's
# process); the breakdown per process and thread kind goes to $D/idle-breakdown.txt.
idle_cpu() {
  local broker services=() b0 b1 s0=0 s1=0 pid
  broker=$(cat $D/stack/broker.pid)
  for f in $D/stack/pids/*.pid; do services+=("$(cat "$f")"); done
  thread_ticks >$D/threads-before.txt
  b0=$(cpu_ticks "$broker")
  for pid in "${services[@]}"; do s0=$((s0 + $(cpu_ticks "$pid"))); done
  sleep "$IDLE_SECONDS"
  b1=$(cpu_ticks "$broker")
  for pid in "${services[@]}"; do s1=$((s1 + $(cpu_ticks "$pid"))); done
  thread_ticks >$D/threads-after.txt
  idle_breakdown $D/threads-before.txt $D/threads-after.txt "$1"
  awk -v b=$((b1 - b0)) -v s=$((s1 - s0)) -v t="$CPU_TICKS_PER_S" -v n="$IDLE_SECONDS" \
    'BEGIN { printf "%.3f / %.3f (total %.3f)", b / t / n, s / t / n, (b + s) / t / n }'
}
# measure LABEL: RATE/s for DURATION; sets OUT (LoadGen's output) and BROKER_US (the dev broker's CPU-µs per
# answered request: unlike latency, barely moved by other work on the box).
measure() {
  local broker b0
  broker=$(cat $D/stack/broker.pid)
  b0=$(cpu_ticks "$broker")
  OUT=$(comparable "$RATE" "$DURATION" "$1")
  BROKER_US=$(awk -v b=$(($(cpu_ticks "$broker") - b0)) -v t="$CPU_TICKS_PER_S" -v n="$(cpu_answered "$OUT")" \
    'BEGIN { printf "%.0f", n ? b / t * 1e6 / n : 0 }')
}
# row LABEL LOADGEN_OUTPUT IDLE FIRST: one line of the table.
row() {
  local out=$2 p50 p99 total shed
  p50=$(grep -oE 'p50 [0-9.]+ ms' <<<"$out" | head -1 | cut -d' ' -f2)
  p99=$(grep -oE 'p99 [0-9.]+ ms' <<<"$out" | head -1 | cut -d' ' -f2)
  total=$(cpu_answered "$out")
  shed=$(count 503 "$out")
  printf '| %s | %s | %s | %s ms, %s ms, %s × 503 (%.1f %%) | %s |\n' "$1" "$3" "$4" "$p50" "$p99" "$shed" \
    "$(awk -v s="$shed" -v t="$total" 'BEGIN { print t ? 100 * s / t : 0 }')" "$BROKER_US" >>$D/table.md
  echo "$out" | head -1
}

printf '| state | idle CPU-s/s: broker / services (total) | first request after %s s idle | %s/s: p50, p99, 503s | broker CPU-µs per request |\n' \
  "$IDLE_SECONDS" "$RATE" >$D/table.md
echo '|---|---|---|---|---|' >>$D/table.md
idle=$(idle_cpu fresh)
first=$(first_request)
measure "fresh ${RATE}/s"
row "fresh stack" "$OUT" "$idle" "$first"

# The fresh peak: the highest rate served with no 503 and at least 99 % 200s.
if [ -z "${PEAK_RATE:-}" ]; then
  PEAK_RATE=$RATE
  for rate in $PEAK_RATES; do
    out=$(comparable "$rate" 5 "fresh peak search ${rate}/s")
    echo "$out" | head -1
    ok=$(count 200 "$out")
    if [ "$(count 503 "$out")" = 0 ] && [ "$ok" -ge $((rate * 5 * 99 / 100)) ]; then PEAK_RATE=$rate; else break; fi
    sleep 2
  done
fi
AGING_RATE=${AGING_RATE:-$PEAK_RATE}
BURST_RATE=$((2 * PEAK_RATE))
echo "== fresh peak ${PEAK_RATE}/s; aging at ${AGING_RATE}/s; burst at ${BURST_RATE}/s"
sleep 5

answered=0 idle_rounds=0
while [ "$answered" -lt "$AGING_REQUESTS" ] && [ "$idle_rounds" -lt 3 ]; do
  seconds=$(awk -v n=$((AGING_REQUESTS - answered)) -v r="$AGING_RATE" 'BEGIN { s = n / r; print (s > 30 ? 30 : (s < 1 ? 1 : s)) }')
  out=$(comparable "$AGING_RATE" "$seconds" "aging at ${AGING_RATE}/s")
  echo "$out" | head -1
  ok=$(grep -oE '200×[0-9]+' <<<"$out" | grep -oE '[0-9]+$' || echo 0)
  answered=$((answered + ok))
  if [ "$ok" = 0 ]; then idle_rounds=$((idle_rounds + 1)); else idle_rounds=0; fi
done
[ "$idle_rounds" -lt 3 ] || echo "== aging stopped: three rounds without a 200"
sleep 5
idle=$(idle_cpu aged)
first=$(first_request)
measure "aged ${RATE}/s"
row "after $answered answered requests" "$OUT" "$idle" "$first"

comparable "$BURST_RATE" "$BURST_SECONDS" "burst ${BURST_RATE}/s (2 × the fresh peak)" | head -1
out=$("$BIN/LoadGen" "$URL/v1/resolve-comparable" "$RATE" "$RECOVERY_SECONDS" --method POST \
  --body-file $D/comparable.json --header "Content-Type: application/json" --label "after the burst ${RATE}/s" \
  --timeline 1)
echo "$out"
# The first one-second slice from which every later slice has no 503 (none: never within RECOVERY_SECONDS).
clean_from=$(grep -E '^ +t=' <<<"$out" | awk '{ t = $1 == "t=" ? $2 : substr($1, 3); if ($0 ~ / 503×/) c = ""; else if (c == "") c = t } END { print c == "" ? "never" : c " s" }')
slices=$(grep -E '^ +t=' <<<"$out" | grep -oE '503×[0-9]+' | tr '\n' ' ' | sed 's/ $//' || true)
[ -n "$slices" ] || slices="no 503"
printf '| right after a %s s burst at %s/s (2 × the fresh peak of %s/s) | — | — | %s/s served with 0 × 503 from %s after the burst (slices of 1 s: %s) | — |\n' \
  "$BURST_SECONDS" "$BURST_RATE" "$PEAK_RATE" "$RATE" "$clean_from" \
  "$slices" >>$D/table.md
echo "fresh peak ${PEAK_RATE}/s"
echo
cat $D/table.md
echo
cat $D/idle-breakdown.txt
