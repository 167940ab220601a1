#!/usr/bin/env bash
# Checks that scripts/run-local.sh, started in the background (as a supervisor or CI starts it), leaves nothing
# running however it ends: stopped with SIGINT, SIGTERM or SIGHUP, or killed with SIGKILL, no supervisor or service of
# it may remain 2 s later (then its stack guard has up to 15 s more to stop the broker, Postgres and Redis).
# With MAPVEST_BIN_DIR set the real binaries run against a fresh stack; otherwise stand-ins (`sleep`) run with
# nothing but the runner itself, which is what this checks.
#
#   scripts/checks/runner-orphans.sh                 # about 15 s
#   MAPVEST_BIN_DIR=.build/debug scripts/checks/runner-orphans.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/mapvest-runner-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "${MAPVEST_BIN_DIR:-}" ]; then
  mkdir -p "$work/bin"
  for b in Gateway Identify Nearby Rating Briefs PushDispatcher Research; do
    printf '#!/bin/sh\nexec sleep 600\n' >"$work/bin/$b"
    chmod +x "$work/bin/$b"
  done
  export MAPVEST_BIN_DIR=$work/bin KAFKA_BROKERS=127.0.0.1:1 REDIS_URL=redis://127.0.0.1:1
  export POSTGRES_URL=postgres://check@127.0.0.1:1/check
fi

# Running and not a zombie.
alive() {
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $state != Z* ]]
}

failures=0
for signal in INT TERM HUP KILL; do
  dir=$work/run-$signal
  port=$((20000 + RANDOM % 20000))
  MAPVEST_LOCAL_DIR=$dir PORT=$port ADMIN_PORT_BASE=$((port + 100)) LOG_FORMAT=json \
    scripts/run-local.sh >"$work/$signal.log" 2>&1 &
  runner=$!
  services=()
  for _ in $(seq 1 600); do
    services=()
    for f in "$dir"/pids/*.pid; do [ -f "$f" ] && services+=("$(cat "$f")"); done
    [ ${#services[@]} -ge 7 ] && break
    sleep 0.1
  done
  helpers=($(pgrep -P "$runner" || true))  # supervisors and the stack guard
  if [ ${#services[@]} -lt 7 ]; then
    echo "FAIL $signal: the runner did not start 7 services (log: $(tail -3 "$work/$signal.log"))"
    kill -KILL "$runner" 2>/dev/null || true
    failures=$((failures + 1))
    continue
  fi
  sleep 1  # let every service get going
  kill -"$signal" "$runner"
  sent=$SECONDS
  left=()
  for _ in $(seq 1 20); do
    sleep 0.1
    left=()
    for pid in "${services[@]}" "${helpers[@]}"; do alive "$pid" && left+=("$pid"); done
    [ ${#left[@]} -eq 0 ] && break
  done
  # The stack guard may still be stopping Postgres: wait for it, then count what is still there.
  for _ in $(seq 1 150); do
    still=()
    for pid in "${left[@]}"; do alive "$pid" && still+=("$pid"); done
    [ ${#still[@]} -eq 0 ] && break
    sleep 0.1
  done
  remaining=()
  for pid in "${services[@]}"; do alive "$pid" && remaining+=("$pid"); done
  if alive "$runner"; then
    echo "FAIL $signal: the runner ignored it"
    failures=$((failures + 1))
    kill -KILL "$runner" "${helpers[@]}" 2>/dev/null || true
  fi
  wait "$runner" 2>/dev/null || true
  services_left=0
  for pid in "${services[@]}"; do
    for l in "${left[@]}"; do [ "$pid" = "$l" ] && services_left=$((services_left + 1)); done
  done
  if [ "$services_left" -gt 0 ] || [ ${#remaining[@]} -gt 0 ]; then
    echo "FAIL $signal: $services_left of ${#services[@]} services still running 2 s after the signal"
    kill -KILL "${remaining[@]}" 2>/dev/null || true
    failures=$((failures + 1))
  else
    echo "ok   $signal: ${#services[@]} services and ${#helpers[@]} supervisors/guard gone (${#left[@]} after 2 s)"
  fi
done
exit $((failures > 0))
