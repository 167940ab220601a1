#!/usr/bin/env bash
# Runs the whole system in the foreground: installs missing Debian packages, builds, starts a Kafka-protocol
# broker, Postgres and Redis on loopback (data under .stack/local), then every service and the gateway.
# Ctrl-C / SIGTERM stops everything it started. Set KAFKA_BROKERS, POSTGRES_URL or REDIS_URL to use your own.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh

CONFIG=${MAPVEST_BUILD:-release}
stack_install
swift build -c "$CONFIG"
BIN=$(swift build -c "$CONFIG" --show-bin-path)
export MAPVEST_ENV=${MAPVEST_ENV:-dev}
export PORT=${PORT:-3001}

pids=()
shutdown() {
  trap '' INT TERM  # a second Ctrl-C must not skip stopping the stack
  trap - EXIT
  stack_log "stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  stack_stop
}
trap shutdown INT TERM EXIT

stack_start .stack/local "$BIN"
admin=9101
for svc in Identify Nearby Rating Briefs PushDispatcher; do
  ADMIN_PORT=$admin "$BIN/$svc" &
  pids+=($!)
  admin=$((admin + 1))
done
ADMIN_PORT=9100 "$BIN/Gateway" &
pids+=($!)

for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
stack_log "gateway: http://127.0.0.1:$PORT  (try: curl http://127.0.0.1:$PORT/v1/health)"
wait -n "${pids[@]}" || true
