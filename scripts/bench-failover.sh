#!/usr/bin/env bash
# Hot-key failover: two Identify replicas behind one gateway, POST /v1/resolve-comparable for one brand (one key,
# so one partition, one owning replica) at RATE/s, with production consumer settings (10 s session, 1 s heartbeat).
# At 4 s the replica owning the key gets kill -9 or SIGTERM; cases:
#   kill-9 and sigterm, each with hedging on and off (GATEWAY_HEDGING); sigterm-restart: SIGTERM of the owner and
#   an immediate restart under the same static identity (KAFKA_GROUP_INSTANCE_ID, a rolling restart), hedging on
#   and off.
# Prints per case the 504 count and the seconds of raised p99 (0.5 s slices with p99 > RAISED_MS).
# Usage: scripts/bench-failover.sh [seconds per case (default 16)]
#   env RATE (100), RAISED_MS (100), BENCH_CONFIG (release), BIN (a folder of built binaries: no build),
#   CASES (some of "kill9 sigterm static"; default all), SETTLE (seconds the group gets to form before a case; 25),
#   REPLICA_RDKAFKA=debian (the replicas load Debian's librdkafka 2.0.2 instead of the stack's 2.16.1, to show
#   decision 0059's case: its cooperative consumer loses its whole assignment when a commit meets a rebalance),
#   REPLICA_DEBUG (librdkafka debug contexts, e.g. cgrp: the replicas log at debug level into identify-*.log)
# Each case's timeline (.stack/bench-failover/timeline-NAME.txt) ends with the instant of the signal and the
# replicas' group events, in seconds from the start of the load.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
DURATION=${1:-16}
RATE=${RATE:-100}
RAISED_MS=${RAISED_MS:-100}
# The dev broker holds each join round for session.timeout.ms - 1 s (9 s here) unless the group was already
# rebalancing, and a cooperative group needs two rounds after the second member joins: 12 s was not enough.
SETTLE=${SETTLE:-25}

if [ -z "${BIN:-}" ]; then bench_build .stack/bench-failover-build.log Gateway Identify DevBroker LoadGen; fi
D=.stack/bench-failover
bench_stack $D
# A replica restarted inside a case's background block is not in `pids`: its pid file is.
trap 'if [ -f "$D/restarted.pid" ]; then kill -TERM "$(cat "$D/restarted.pid")" 2>/dev/null || true; fi; bench_cleanup' EXIT
# Production membership timings on the dev broker (the dev profile's are 1.5 s / 0.5 s); librdkafka requires
# max.poll.interval.ms ≥ session.timeout.ms, so the dev profile's 7 s goes back to its default too.
PRODUCTION=(KAFKA_CONFIG_SESSION_TIMEOUT_MS=10000 KAFKA_CONFIG_HEARTBEAT_INTERVAL_MS=1000
  KAFKA_CONFIG_MAX_POLL_INTERVAL_MS=300000)
REPLICA_ENV=()
if [ "${REPLICA_RDKAFKA:-}" = debian ]; then
  REPLICA_ENV=(LD_LIBRARY_PATH=)
fi
if [ -n "${REPLICA_DEBUG:-}" ]; then REPLICA_ENV+=(LOG_LEVEL=debug KAFKA_CONFIG_DEBUG="$REPLICA_DEBUG"); fi
echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); ${RATE}/s on one key, binaries from $BIN," \
  "replicas on ${REPLICA_RDKAFKA:-2.16.1} librdkafka"

# start_identify NAME [ENV...]: an Identify replica; sets LAST_PID and LAST_ADMIN (its admin port).
start_identify() {
  local name=$1
  shift
  LAST_ADMIN=$(stack_free_port)
  env "${PRODUCTION[@]}" "${REPLICA_ENV[@]}" "$@" ADMIN_PORT="$LAST_ADMIN" "$BIN/Identify" >/dev/null \
    2>>"$D/identify-$name.log" &
  LAST_PID=$!
  pids+=("$LAST_PID")
  bench_wait_ready "$LAST_ADMIN"
}
stop_pid() { kill -TERM "$1" 2>/dev/null || true; while kill -0 "$1" 2>/dev/null; do sleep 0.1; done; }
# Commands this replica has handled so far (all identify commands, any outcome).
handled() {
  curl -fs "http://127.0.0.1:$1/metrics" | awk '/^messaging_commands_total\{/ { n += $NF } END { printf "%d", n }'
}

echo '{"brand":"Starbucks"}' >$D/comparable.json
comparable() { # URL RATE SECONDS LABEL [LoadGen options...]
  local url=$1 rate=$2 seconds=$3 label=$4
  shift 4
  "$BIN/LoadGen" "$url/v1/resolve-comparable" "$rate" "$seconds" --method POST --body-file $D/comparable.json \
    --header "Content-Type: application/json" --label "$label" "$@"
}

# run_case NAME HEDGING SIGNAL STATIC: one fresh pair of replicas and a gateway; SIGNAL to the key's owner at 4 s.
run_case() {
  local name=$1 hedging=$2 signal=$3 static=$4 port gateway a b admin_a admin_b owner owner_admin
  local -a id_a=() id_b=()
  if [ "$static" = static ]; then id_a=(KAFKA_GROUP_INSTANCE_ID="failover-a"); id_b=(KAFKA_GROUP_INSTANCE_ID="failover-b"); fi
  start_identify "$name-a" "${id_a[@]}"; a=$LAST_PID; admin_a=$LAST_ADMIN
  start_identify "$name-b" "${id_b[@]}"; b=$LAST_PID; admin_b=$LAST_ADMIN
  port=$(stack_free_port)
  local gateway_admin
  gateway_admin=$(stack_free_port)
  PORT=$port ADMIN_PORT=$gateway_admin GATEWAY_INSTANCE_ID="failover-$name" GATEWAY_LIMITS=off \
    GATEWAY_HEDGING=$hedging "$BIN/Gateway" 2>"$D/gateway-$name.log" &
  gateway=$!
  pids+=("$gateway")
  bench_wait_ready "$port"
  # Both members joined and the group settled (see SETTLE).
  sleep "$SETTLE"
  comparable "http://127.0.0.1:$port" 20 3 warm-up >/dev/null
  local before_a before_b
  before_a=$(handled "$admin_a"); before_b=$(handled "$admin_b")
  comparable "http://127.0.0.1:$port" 20 2 owner >/dev/null
  if (($(handled "$admin_a") - before_a >= $(handled "$admin_b") - before_b)); then
    owner=$a; owner_admin=a
  else
    owner=$b; owner_admin=b
  fi
  local out started
  started=$(date +%s.%N)
  out=$( {
    sleep 4
    date +%s.%N >"$D/signal-$name.at"
    kill "-$signal" "$owner"
    if [ "$static" = static ]; then
      while kill -0 "$owner" 2>/dev/null; do sleep 0.05; done
      # The rolling restart: the same static identity back at once.
      if [ "$owner_admin" = a ]; then start_identify "$name-a2" "${id_a[@]}"; else start_identify "$name-b2" "${id_b[@]}"; fi
      echo "$LAST_PID" >"$D/restarted.pid"
    fi
  } >/dev/null 2>&1 & comparable "http://127.0.0.1:$port" "$RATE" "$DURATION" "$name" --timeline 0.5)
  echo "$out" | head -1
  echo "$out" >"$D/timeline-$name.txt"
  group_events "$name" "$started" "$(cat "$D/signal-$name.at")" "$owner_admin" >>"$D/timeline-$name.txt"
  echo "$out" | awk -v name="$name" -v raised_ms="$RAISED_MS" '/t=/ { for (i = 1; i <= NF; i++) if ($i == "p99") p = $(i + 1);
      if (p + 0 > raised_ms) raised += 0.5; n = split($0, parts, "504×"); if (n > 1) { split(parts[2], c, " "); e += c[1] } }
    END { printf "== %s: %.1f s of raised p99 (0.5 s slices with p99 > %d ms), %d × 504\n", name, raised, raised_ms, e }'
  curl -fs "http://127.0.0.1:$gateway_admin/metrics" | awk -v name="$name" '
    /^messaging_hedges_total\{.*outcome="sent"/ { sent += $NF }
    /^messaging_hedges_total\{.*outcome="over_budget"/ { over += $NF }
    /^messaging_replies_dropped_total\{.*reason="hedge_loser"/ { lost += $NF }
    END { printf "== %s: %d hedge copies sent, %d hedge losers dropped, %d hedges over budget\n", name, sent, lost, over }'
  # Everything of this case stops; static members are gone for good, so their session must expire before the
  # next case's group settles.
  for pid in "$gateway" "$a" "$b"; do stop_pid "$pid"; done
  if [ -f "$D/restarted.pid" ]; then stop_pid "$(cat "$D/restarted.pid")"; rm -f "$D/restarted.pid"; fi
  [ "$static" = static ] && sleep 11
  return 0
}

# group_events NAME START SIGNAL_AT OWNER: the signal and the replicas' consumer-group events of a case, in seconds
# from START (epoch seconds).
group_events() {
  local name=$1 start=$2
  awk -v start="$start" -v at="$3" 'BEGIN { printf "t=%.2f signal to the owner (%s)\n", at - start, "'"$4"'" }'
  for log in "$D/identify-$name"-*.log; do
    { grep -hE 'shutting down|kafka partitions (assigned|revoked)|kafka consumer closed|assignment.*lost|ILLEGAL_GENERATION|changed join state|Heartbeat.*(REBALANCE|rebalance)|LeaveGroup' "$log" || true; } \
      | python3 -c '
import datetime, re, sys
start, who = float(sys.argv[1]), sys.argv[2]
for line in sys.stdin:
    ts = re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", line)
    if not ts: continue
    t = datetime.datetime.fromisoformat(ts.group(0).replace("Z", "+00:00")).timestamp() - start
    if t >= -1: print(f"t={t:.2f} {who}: {line.strip()[:240]}")' "$start" "$(basename "$log" .log)"
  done | sort -t= -k2 -g
}

selected() { [ -z "${CASES:-}" ] || [[ " $CASES " == *" $1 "* ]]; }
if selected kill9; then
  run_case kill9-hedged on KILL dynamic
  sleep 11  # the killed member's session expires before the next case
  run_case kill9-unhedged off KILL dynamic
  sleep 11
fi
if selected sigterm; then
  run_case sigterm-hedged on TERM dynamic
  run_case sigterm-unhedged off TERM dynamic
fi
if selected static; then
  run_case sigterm-restart-static-hedged on TERM static
  run_case sigterm-restart-static-unhedged off TERM static
fi
