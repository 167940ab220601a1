#!/usr/bin/env bash
# Prints the performance figures of one run on this box (release build, real broker, Postgres and Redis):
#   1. gateway GET /v1/health with wrk, and nginx serving a static file on the same box, same wrk settings;
#   2. at a fixed rate (open loop): GET /v1/health (no Kafka), POST /v1/resolve-comparable for a seed brand (the
#      Kafka round trip plus a trivial handler: the p50 difference is what Kafka adds) and POST /v1/identify by hint
#      (claim check in Redis, Kafka both ways, seed resolution);
#   3. RSS of each binary idle and right after the identify load.
# Usage: scripts/bench.sh [duration-seconds (default 10)] [identify-rate/s (default 200)]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
DURATION=${1:-10}
RATE=${2:-200}

stack_install wrk nginx
mkdir -p .stack
swift build -c release >.stack/bench-build.log 2>&1 || { tail -40 .stack/bench-build.log; exit 1; }
BIN=$(swift build -c release --show-bin-path)
export MAPVEST_ENV=dev LOG_LEVEL=warning
unset KAFKA_BROKERS POSTGRES_URL REDIS_URL
rm -rf .stack/bench
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  [ -f .stack/bench/nginx.pid ] && kill "$(cat .stack/bench/nginx.pid)" 2>/dev/null || true
  stack_stop
}
trap cleanup EXIT
stack_start .stack/bench "$BIN"

PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) "$BIN/Identify" 2>.stack/bench/identify.log & pids+=($!); IDENTIFY_PID=$!
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench GATEWAY_LIMITS=off "$BIN/Gateway" 2>.stack/bench/gateway.log & pids+=($!); GATEWAY_PID=$!
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 3

rss() { awk '/VmRSS/ {printf "%.1f MB", $2/1024}' "/proc/$1/status"; }
echo "== idle RSS: gateway $(rss $GATEWAY_PID) · identify $(rss $IDENTIFY_PID) · dev broker $(rss "$(cat .stack/bench/broker.pid)")"

# nginx serving a static file, for comparison.
NGINX_PORT=$(stack_free_port)
mkdir -p .stack/bench/www && echo '{"ok":true,"service":"mapvest-api"}' >.stack/bench/www/health.json
cat >.stack/bench/nginx.conf <<CONF
worker_processes 2; pid $PWD/.stack/bench/nginx.pid; error_log $PWD/.stack/bench/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$NGINX_PORT; root $PWD/.stack/bench/www; } }
CONF
nginx -c "$PWD/.stack/bench/nginx.conf"
sleep 0.3

echo "== wrk -t2 -c50 -d${DURATION}s GET /v1/health (gateway)"
wrk -t2 -c50 -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/v1/health" | grep -E 'Requests/sec|50%|99%'
echo "== wrk -t2 -c50 -d${DURATION}s GET /health.json (nginx static file)"
wrk -t2 -c50 -d"${DURATION}s" --latency "http://127.0.0.1:$NGINX_PORT/health.json" | grep -E 'Requests/sec|50%|99%'

# Identify by hint through Kafka, open loop at a fixed rate.
BOUNDARY=benchboundary
printf -- "--%s\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\xff\xe0benchjpeg\xff\xd9\r\n--%s\r\nContent-Disposition: form-data; name=\"hint\"\r\n\r\nStarbucks\r\n--%s--\r\n" \
  "$BOUNDARY" "$BOUNDARY" "$BOUNDARY" >.stack/bench/identify.body
echo '{"brand":"Starbucks"}' >.stack/bench/comparable.json
# Warm up: the first commands wait for Identify's consumer group to settle.
"$BIN/LoadGen" "http://127.0.0.1:$PORT/v1/resolve-comparable" 5 4 --method POST --body-file .stack/bench/comparable.json \
  --header "Content-Type: application/json" --label "warm-up" >/dev/null
"$BIN/LoadGen" "http://127.0.0.1:$PORT/v1/identify" 5 3 --method POST --body-file .stack/bench/identify.body \
  --header "Content-Type: multipart/form-data; boundary=$BOUNDARY" --header "X-Device-Id: warm" --label "warm-up" >/dev/null
echo "== open loop at ${RATE}/s for ${DURATION}s"
"$BIN/LoadGen" "http://127.0.0.1:$PORT/v1/health" "$RATE" "$DURATION" --label "GET /v1/health (no Kafka)"
"$BIN/LoadGen" "http://127.0.0.1:$PORT/v1/resolve-comparable" "$RATE" "$DURATION" --method POST \
  --body-file .stack/bench/comparable.json --header "Content-Type: application/json" \
  --label "POST /v1/resolve-comparable, seed brand (Kafka round trip + a trivial handler)"
"$BIN/LoadGen" "http://127.0.0.1:$PORT/v1/identify" "$RATE" "$DURATION" --method POST \
  --body-file .stack/bench/identify.body --header "Content-Type: multipart/form-data; boundary=$BOUNDARY" \
  --header "X-Device-Id: bench" --label "POST /v1/identify by hint (Kafka round trip)"
echo "== RSS after load: gateway $(rss $GATEWAY_PID) · identify $(rss $IDENTIFY_PID)"

# The other services, idle (started last: on the dev broker every idle consumer polls, which would tax the figures
# above).
declare -A OTHER
for svc in Nearby Rating Briefs PushDispatcher; do
  ADMIN_PORT=$(stack_free_port) "$BIN/$svc" 2>".stack/bench/$svc.log" & pids+=($!); OTHER[$svc]=$!
done
sleep 6
echo "== idle RSS: nearby $(rss ${OTHER[Nearby]}) · rating $(rss ${OTHER[Rating]}) · briefs $(rss ${OTHER[Briefs]}) · push $(rss ${OTHER[PushDispatcher]})"
