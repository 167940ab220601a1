#!/usr/bin/env bash
# Does the local stack stay fast with use? (docs/BENCHMARKS.md, "The dev broker ages"; issue 33.) Starts the whole
# stack as a user gets it (scripts/run-local.sh: every service; the gateway with its admission limit, without the
# per-client limits: GATEWAY_LIMITS=off) on free ports under .stack/bench-aging, then prints one table:
#   idle CPU-s per second of the dev broker and of all services together (IDLE_SECONDS of /proc/<pid>/stat), and
#   POST /v1/resolve-comparable at RATE/s (LoadGen): p50, p99 and the share of 503s,
# for: the fresh stack; after AGING_REQUESTS answered requests offered at AGING_RATE/s; and, a few seconds after
# a BURST_SECONDS burst at BURST_RATE/s (an overload), RATE/s again (it must be served with no 503).
#
#   scripts/bench-aging.sh [seconds per measurement (default 10)]
#   env RATE (200), AGING_REQUESTS (100000), AGING_RATE (800), BURST_RATE (800), BURST_SECONDS (15),
#   IDLE_SECONDS (10), MAPVEST_BIN_DIR (use these binaries; default: a release build),
#   DEV_BROKER_RETENTION_S (the dev broker's retention; 0 shows the broker without it)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/cpu.sh
DURATION=${1:-10}
RATE=${RATE:-200}
AGING_REQUESTS=${AGING_REQUESTS:-100000}
AGING_RATE=${AGING_RATE:-800}
BURST_RATE=${BURST_RATE:-800}
BURST_SECONDS=${BURST_SECONDS:-15}
IDLE_SECONDS=${IDLE_SECONDS:-10}

stack_install
mkdir -p .stack
if [ -z "${MAPVEST_BIN_DIR:-}" ]; then
  swift build -c release >.stack/bench-aging-build.log 2>&1 || { tail -40 .stack/bench-aging-build.log; exit 1; }
  MAPVEST_BIN_DIR=$(swift build -c release --show-bin-path)
fi
BIN=$MAPVEST_BIN_DIR
D=.stack/bench-aging
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

echo '{"brand":"Starbucks"}' >$D/comparable.json
comparable() { # RATE SECONDS LABEL
  "$BIN/LoadGen" "$URL/v1/resolve-comparable" "$1" "$2" --method POST --body-file $D/comparable.json \
    --header "Content-Type: application/json" --label "$3"
}
for _ in $(seq 1 60); do grep -q ' 200×10' <<<"$(comparable 5 2 warm-up)" && break; done

# idle_cpu: "broker/services" CPU-s per second over IDLE_SECONDS, no requests (services: every replica's process).
idle_cpu() {
  local broker services=() b0 b1 s0=0 s1=0 pid
  broker=$(cat $D/stack/broker.pid)
  for f in $D/stack/pids/*.pid; do services+=("$(cat "$f")"); done
  b0=$(cpu_ticks "$broker")
  for pid in "${services[@]}"; do s0=$((s0 + $(cpu_ticks "$pid"))); done
  sleep "$IDLE_SECONDS"
  b1=$(cpu_ticks "$broker")
  for pid in "${services[@]}"; do s1=$((s1 + $(cpu_ticks "$pid"))); done
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
# row LABEL LOADGEN_OUTPUT IDLE: one line of the table.
row() {
  local out=$2 p50 p99 total shed
  p50=$(grep -oE 'p50 [0-9.]+ ms' <<<"$out" | head -1 | cut -d' ' -f2)
  p99=$(grep -oE 'p99 [0-9.]+ ms' <<<"$out" | head -1 | cut -d' ' -f2)
  total=$(cpu_answered "$out")
  shed=$(grep -oE '503×[0-9]+' <<<"$out" | grep -oE '[0-9]+$' || echo 0)
  printf '| %s | %s | %s ms, %s ms, %s × 503 (%.1f %%) | %s |\n' "$1" "$3" "$p50" "$p99" "$shed" \
    "$(awk -v s="$shed" -v t="$total" 'BEGIN { print t ? 100 * s / t : 0 }')" "$BROKER_US" >>$D/table.md
  echo "$out" | head -1
}

printf '| state | idle CPU-s/s: broker / services | %s/s: p50, p99, 503s | broker CPU-µs per request |\n' "$RATE" \
  >$D/table.md
echo '|---|---|---|---|' >>$D/table.md
idle=$(idle_cpu)
measure "fresh ${RATE}/s"
row "fresh stack" "$OUT" "$idle"

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
idle=$(idle_cpu)
measure "aged ${RATE}/s"
row "after $answered answered requests" "$OUT" "$idle"

comparable "$BURST_RATE" "$BURST_SECONDS" "burst ${BURST_RATE}/s" | head -1
sleep 5
measure "after the burst ${RATE}/s"
row "5 s after a ${BURST_SECONDS} s burst at ${BURST_RATE}/s" "$OUT" "$(idle_cpu)"
echo
cat $D/table.md
