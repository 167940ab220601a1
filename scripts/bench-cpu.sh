#!/usr/bin/env bash
# Where the CPU of the bus goes, in figures that a shared box does not distort (docs/BENCHMARKS.md, "CPU per
# request"). Release build, the dev stack, one Identify replica, the gateway with its limits off.
#
#   scripts/bench-cpu.sh [seconds per step (default 10)]
#     idle CPU per second of each process (consumers polling the dev broker), then CPU-µs per request answered
#     (scripts/lib/cpu.sh) of gateway, Identify, dev broker, Redis and the load generator for:
#     POST /v1/resolve-comparable with LoadGen at each of CPU_RATES ("1000 2000") and with wrk -c64 (closed loop),
#     GET /v1/health with wrk (the gateway alone) and nginx (one worker) serving a static file the same way,
#     POST /v1/identify (a 16 KB JPEG of a sign + hint, OCR off) at IDENTIFY_RATE (300).
#     CPU_AGING_ROUNDS=N then adds N rounds of 1,800/s traffic, each followed by 1,000/s again (the dev broker's
#     log grows; see docs/BENCHMARKS.md). Context switches per request of each process too; CPU_THREADS=1 breaks them down by thread name (libmicrohttpd's,
#     librdkafka's, our poll threads, the cooperative pool), to show which hop wakes whom.
#   scripts/bench-cpu.sh --callgrind [requests (default 2000)] [rate (default 100)]
#     runs the gateway and Identify under `valgrind --tool=callgrind` (instrumentation switched on after the
#     warm-up, so start-up is not counted), sends that many requests at that rate (CALLGRIND_ROUTE: comparable,
#     the default, resolve-comparable; identify, identify with a photo as below; health, GET /v1/health), and
#     prints instructions per request of each process and the top inclusive functions (callgrind_annotate).
#     Instruction counts are the same on a busy box and a quiet one. Each thread is counted apart
#     (--separate-threads) and classed by what it runs: the Swift cooperative pool, our Kafka poll threads,
#     libmicrohttpd's thread, librdkafka's threads. Each class's idle rate is subtracted on its own, so the fetch
#     polling of librdkafka's threads (one fetch per 1 ms per broker while traffic flows, paced while idle) does
#     not drown the work the other threads do per request. Output files:
#     .stack/bench-cpu/callgrind.<pid>.<dump>-<thread>, <process>.top.txt (inclusive) and <process>.self.txt
#     (exclusive), per request and summed over threads.
#   CPU_TRACING=on (either mode): the gateway and Identify trace every request (OTEL_TRACES_SAMPLER=always_on) and
#     export to a loopback OTLP receiver (scripts/checks/otlp_receiver.py --count), which reports the spans it
#     received; default off (no endpoint: no tracer installed).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/cpu.sh
MODE=cpu
if [ "${1:-}" = "--callgrind" ]; then MODE=callgrind; shift; fi
DURATION=${1:-10}
REQUESTS=${1:-2000}
PROFILE_RATE=${2:-100}
CPU_RATES=${CPU_RATES:-"1000 2000"}
IDENTIFY_RATE=${IDENTIFY_RATE:-300}

stack_install wrk valgrind nginx
mkdir -p .stack
: >.stack/bench-cpu-build.log
# Only the binaries this script runs (a release build of every product takes far longer on a shared box).
for product in DevBroker LoadGen Identify Gateway; do
  swift build -c release --product $product >>.stack/bench-cpu-build.log 2>&1 \
    || { tail -40 .stack/bench-cpu-build.log; exit 1; }
done
BIN=$(swift build -c release --show-bin-path)
export MAPVEST_ENV=dev
unset KAFKA_BROKERS POSTGRES_URL REDIS_URL
D=.stack/bench-cpu
rm -rf $D
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  stack_stop
}
trap cleanup EXIT
stack_start $D "$BIN"
export LOG_LEVEL=warning
echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
grep -o '"librdkafka":"[^"]*"' $D/broker.log | sed 's/^/== dev broker /' || true

# Offline OCR (Tesseract, far more per photo than the route around it) is measured by scripts/bench-identify.sh;
# here the identify route and the command around it (OCR_WORKERS=0: the hint answers).
export OCR_WORKERS=${OCR_WORKERS:-0}
RUN=()
if [ $MODE = callgrind ]; then
  # --instr-atstart=no: nothing is counted until `callgrind_control -i on` after the warm-up.
  cc -shared -fPIC -O2 -o $D/valgrind-sigsuspend.so scripts/lib/valgrind-sigsuspend.c
  # Under valgrind on a shared box a consumer can miss the dev profile's 1.5 s session (its group rebalances and
  # requests time out): longer group timeouts for the profiled processes.
  export KAFKA_CONFIG_SESSION_TIMEOUT_MS=${KAFKA_CONFIG_SESSION_TIMEOUT_MS:-10000}
  export KAFKA_CONFIG_HEARTBEAT_INTERVAL_MS=${KAFKA_CONFIG_HEARTBEAT_INTERVAL_MS:-1000}
  export KAFKA_CONFIG_MAX_POLL_INTERVAL_MS=${KAFKA_CONFIG_MAX_POLL_INTERVAL_MS:-60000}
  # Under valgrind a Postgres login (SCRAM hashing in libcrypto) takes seconds: a longer connect timeout, so start-up
  # does not give up, and small pools that the warm-up below fills, so no login falls inside the window.
  POSTGRES_URL="$POSTGRES_URL?connect_timeout=120"
  export POSTGRES_POOL_SIZE=${POSTGRES_POOL_SIZE:-2} REDIS_POOL_SIZE=${REDIS_POOL_SIZE:-2}
  RUN=(env LD_PRELOAD="$PWD/$D/valgrind-sigsuspend.so"
    valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file="$PWD/$D/callgrind.%p")
fi
if [ "${CPU_TRACING:-off}" = on ]; then
  source scripts/lib/py-ops.sh
  ops_venv
  OTLP_PORT=$(stack_free_port)
  "$OPS_VENV/bin/python" scripts/checks/otlp_receiver.py --port "$OTLP_PORT" --count >$D/otlp.log 2>&1 & pids+=($!)
  export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$OTLP_PORT OTEL_TRACES_SAMPLER=always_on
  echo "== tracing on: every request sampled, exported to $OTEL_EXPORTER_OTLP_ENDPOINT"
else
  unset OTEL_EXPORTER_OTLP_ENDPOINT OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  echo "== tracing off (no OTLP endpoint)"
fi
spans_received() { if [ -f $D/otlp.log ]; then tail -1 $D/otlp.log | awk '/^spans / { print $2; exit }'; fi; }
PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) "${RUN[@]}" "$BIN/Identify" 2>$D/identify.log & pids+=($!); IDENTIFY_PID=$!
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench-cpu GATEWAY_LIMITS=off "${RUN[@]}" "$BIN/Gateway" \
  2>$D/gateway.log & pids+=($!); GATEWAY_PID=$!
for _ in $(seq 1 3000); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
URL=http://127.0.0.1:$PORT
BROKER_PID=$(cat $D/broker.pid)
REDIS_PID=$(cat $D/redis.pid)
PROCESSES="gateway=$GATEWAY_PID identify=$IDENTIFY_PID broker=$BROKER_PID redis=$REDIS_PID"

echo '{"brand":"Starbucks"}' >$D/comparable.json
comparable() { # RATE SECONDS LABEL
  "$BIN/LoadGen" "$URL/v1/resolve-comparable" "$1" "$2" --method POST --body-file $D/comparable.json \
    --header "Content-Type: application/json" --label "$3"
}
BOUNDARY=benchboundary
# A real photo of a sign (a JPEG of some KB, drawn by ImageMagick as scripts/bench-identify.sh does) and a hint.
convert -size 900x320 xc:white -font DejaVu-Sans-Bold -pointsize 130 -fill black -annotate +30+220 STARBUCKS \
  -quality 85 $D/sign.jpg
{ printf -- "--%s\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n" \
    "$BOUNDARY"
  cat $D/sign.jpg
  printf -- "\r\n--%s\r\nContent-Disposition: form-data; name=\"hint\"\r\n\r\nStarbucks\r\n--%s--\r\n" "$BOUNDARY" "$BOUNDARY"
} >$D/identify.body
echo "== identify body: $(wc -c <$D/sign.jpg)-byte JPEG (900×320) + hint, $(wc -c <$D/identify.body) bytes"
identify() { # RATE SECONDS LABEL
  "$BIN/LoadGen" "$URL/v1/identify" "$1" "$2" --method POST --body-file $D/identify.body \
    --header "Content-Type: multipart/form-data; boundary=$BOUNDARY" --header "X-Device-Id: bench" --label "$3"
}
health() { "$BIN/LoadGen" "$URL/v1/health" "$1" "$2" --label "$3"; } # RATE SECONDS LABEL
# Warm up until the command group has settled (answers are 200).
for _ in $(seq 1 30); do
  out=$(comparable 5 2 "warm-up")
  grep -q ' 200×10' <<<"$out" && break
done

if [ $MODE = callgrind ]; then
  if [ "${CALLGRIND_ROUTE:-comparable}" = identify ]; then
    # Two rounds at twice the profile rate: every pooled Postgres and Redis connection is open (logged in) before
    # the window; the second round's answers show whether the route keeps up.
    identify "$((PROFILE_RATE * 2))" 5 "warm-up (opens the pools)" >/dev/null
    identify "$((PROFILE_RATE * 2))" 5 "warm-up"
  fi
  # Dump 1: IDLE_SECONDS without requests (pollers, timers); dump 2: the requests. Each dump zeroes the counters.
  IDLE_SECONDS=${IDLE_SECONDS:-10}
  profiled="gateway=$GATEWAY_PID identify=$IDENTIFY_PID"
  for entry in $profiled; do callgrind_control -i on "${entry#*=}" >/dev/null; done
  sleep "$IDLE_SECONDS"
  for entry in $profiled; do callgrind_control -d "${entry#*=}" >/dev/null; done
  seconds=$(awk -v n="$REQUESTS" -v r="$PROFILE_RATE" 'BEGIN { printf "%.2f", n / r }')
  spans_before=$(spans_received)
  route=${CALLGRIND_ROUTE:-comparable}
  out=$($route "$PROFILE_RATE" "$seconds" "$route under callgrind, $REQUESTS requests")
  echo "$out"
  answered=$(cpu_answered "$out")
  # The exporters send a batch at least every OTEL_BSP_SCHEDULE_DELAY (5 s): with tracing on the window stays open
  # TAIL_SECONDS (6) after the requests so their export is counted (the idle rate of the tail is subtracted too).
  tail_seconds=${TAIL_SECONDS:-$([ -n "$spans_before" ] && echo 6 || echo 0)}
  sleep "$tail_seconds"
  seconds=$(awk -v s="$seconds" -v t="$tail_seconds" 'BEGIN { printf "%.2f", s + t }')
  for entry in $profiled; do callgrind_control -d "${entry#*=}" >/dev/null; done
  if [ -n "$spans_before" ]; then
    awk -v a="$spans_before" -v b="$(spans_received)" -v n="$answered" \
      'BEGIN { printf "== spans received during the window: %d (%.1f per request)\n", b - a, (b - a) / n }'
  fi
  ir() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }
  # thread_class FILE: what the thread of a per-thread dump runs (its entry function is in the file).
  thread_class() {
    # (librdkafka and libmicrohttpd are stripped: their threads are known by what they call back into.)
    if grep -q 'swift_job_run' "$1"; then echo pool
    elif grep -q 'pollLoop' "$1"; then echo kafka-poll
    elif grep -qE 'accessHandlerCallback|uriLogCallback' "$1"; then echo microhttpd
    elif grep -q 'librdkafka' "$1"; then echo librdkafka
    else echo other; fi
  }
  # per_function PID DUMP OPTION REQUESTS: instructions per request by function, summed over the dump's threads
  # (callgrind_annotate reads one file at a time). Exclusive costs of one function listed under several source files
  # (inlined code) are summed; inclusive ones keep their file, as callgrind_annotate's entries of one function
  # overlap there.
  per_function() {
    for file in $D/callgrind.$1.$2-*; do
      callgrind_annotate --auto=no "$3" --threshold=100 "$file" 2>/dev/null | sed -n '/^Ir/,$p' | tail -n +3
    done | awk -v n="$4" -v merge="$([ "$3" = --inclusive=no ] && echo 1)" '$1 ~ /^[0-9,]+$/ {
        ir = $1; gsub(",", "", ir); sub(/^ *[0-9,]+ +(\( *[0-9.]+%\) +)?/, "")
        if (merge) sub(/^[^ :]*:/, ""); cost[$0] += ir } END { for (f in cost) printf "%10.1f  %s\n", cost[f] / n, f }' |
      sort -rn
  }
  for entry in $profiled; do
    name=${entry%%=*} pid=${entry#*=}
    declare -A idle_of=() busy_of=()
    for dump in 1 2; do
      for file in $D/callgrind.$pid.$dump-*; do
        class=$(thread_class "$file") count=$(ir "$file")
        if [ $dump = 1 ]; then idle_of[$class]=$((${idle_of[$class]:-0} + count))
        else busy_of[$class]=$((${busy_of[$class]:-0} + count)); fi
      done
    done
    idle=0 busy=0 line=""
    for class in pool kafka-poll microhttpd librdkafka other; do
      i=${idle_of[$class]:-0} b=${busy_of[$class]:-0}
      idle=$((idle + i)) busy=$((busy + b))
      [ "$i$b" = 00 ] && continue
      line+=$(awk -v i="$i" -v b="$b" -v is="$IDLE_SECONDS" -v bs="$seconds" -v n="$answered" -v c="$class" \
        'BEGIN { printf "%s %.1fk (idle %.1fM/s) · ", c, (b - i / is * bs) / n / 1000, i / is / 1e6 }')
    done
    awk -v i="$idle" -v b="$busy" -v is="$IDLE_SECONDS" -v bs="$seconds" -v n="$answered" -v name="$name" 'BEGIN {
      printf "== %s: %.0f instructions per request (%.0f with the idle rate of %.0f/s subtracted; %d answered)\n",
        name, b / n, (b - i / is * bs) / n, i / is, n }'
    echo "== $name by thread class, per request, each class's idle rate subtracted: ${line% · }"
    per_function "$pid" 2 --inclusive=yes "$answered" >$D/$name.top.txt
    per_function "$pid" 2 --inclusive=no "$answered" >$D/$name.self.txt
    # The idle window's costs scaled to the request window's length, per request, to subtract by group.
    per_function "$pid" 1 --inclusive=no "$(awk -v n="$answered" -v is="$IDLE_SECONDS" -v bs="$seconds" \
      'BEGIN { print n * is / bs }')" >$D/$name.idle.txt
    echo "== $name by library and kind, exclusive instructions per request, idle subtracted:"
    awk -f scripts/lib/callgrind-groups.awk $D/$name.idle.txt $D/$name.self.txt | sort -rn | sed 's/^/==   /'
    echo "== $name: top inclusive instructions per request, all threads (exclusive: $D/$name.self.txt)"
    sed -n 1,32p $D/$name.top.txt
  done
  exit 0
fi

echo "== idle: CPU per second of each process (5 s, no requests)"
line=""
for entry in $PROCESSES; do before=$(cpu_ticks "${entry#*=}"); eval "idle_${entry%%=*}=$before"; done
sleep 5
for entry in $PROCESSES; do
  name=${entry%%=*}
  eval "before=\$idle_$name"
  line+="$name $(awk -v a="$before" -v b="$(cpu_ticks "${entry#*=}")" -v t="$CPU_TICKS_PER_S" \
    'BEGIN { printf "%.0f ms/s", (b - a) / t * 1000 / 5 }') · "
done
echo "== idle ${line% · }"

for rate in $CPU_RATES; do
  cpu_measure "$PROCESSES" "resolve-comparable, LoadGen at ${rate}/s" comparable "$rate" "$DURATION" "  ${rate}/s"
  sleep 2
done
# The dev broker's log grows with every request, and librdkafka's mock walks it from the oldest message set to find
# a fetch offset: each round of CPU_AGING_ROUNDS adds 1,800/s of traffic, then measures 1,000/s again.
for round in $(seq 1 "${CPU_AGING_ROUNDS:-0}"); do
  comparable 1800 "$DURATION" "  filler" >/dev/null
  sleep 5
  cpu_measure "$PROCESSES" "resolve-comparable, LoadGen at 1000/s, aging round $round" \
    comparable 1000 "$DURATION" "  1000/s after round $round"
done
cpu_measure "$PROCESSES" "resolve-comparable, wrk -t1 -c64 (closed loop)" \
  wrk -t1 -c64 -d"${DURATION}s" --latency -s scripts/lib/wrk-resolve-comparable.lua "$URL/v1/resolve-comparable"
sleep 2
cpu_measure "gateway=$GATEWAY_PID" "GET /v1/health, wrk -t1 -c50" wrk -t1 -c50 -d"${DURATION}s" "$URL/v1/health"
sleep 2
# nginx (one worker) serving a static file of about the same size, same wrk settings, for comparison.
NGINX_PORT=$(stack_free_port)
mkdir -p $D/www && echo '{"ok":true,"service":"mapvest-api"}' >$D/www/health.json
cat >$D/nginx.conf <<CONF
worker_processes 1; pid $PWD/$D/nginx.pid; error_log $PWD/$D/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$NGINX_PORT; root $PWD/$D/www; } }
CONF
nginx -c "$PWD/$D/nginx.conf"
NGINX_WORKER=""
for _ in $(seq 1 100); do
  [ -s $D/nginx.pid ] && NGINX_WORKER=$(pgrep -P "$(cat $D/nginx.pid)" | head -1 || true)
  [ -n "$NGINX_WORKER" ] && break
  sleep 0.1
done
pids+=("$(cat $D/nginx.pid)")
cpu_measure "nginx=$NGINX_WORKER" "GET /health.json (nginx static file), wrk -t1 -c50" \
  wrk -t1 -c50 -d"${DURATION}s" "http://127.0.0.1:$NGINX_PORT/health.json"
sleep 2

identify 5 2 "warm-up" >/dev/null
cpu_measure "$PROCESSES" "identify (photo + hint), LoadGen at ${IDENTIFY_RATE}/s" \
  identify "$IDENTIFY_RATE" "$DURATION" "  identify ${IDENTIFY_RATE}/s"
