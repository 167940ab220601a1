#!/usr/bin/env bash
# Runs the whole system in the foreground: installs missing Debian packages, builds, starts a Kafka-protocol
# broker, Postgres and Redis on loopback (data under .stack/local), then every service and the gateway, each under
# a supervisor that restarts it with back-off when it exits (and says so). Only Ctrl-C / SIGTERM / SIGHUP stops the
# stack, also when started in the background; if the runner is killed outright (SIGKILL), everything it started
# stops with it (parent-death signals).
#
#   scripts/run-local.sh [--replicas SERVICE=N]...     e.g. --replicas identify=2 --replicas gateway=2
#
# Services: gateway identify nearby rating briefs push research. Environment: PORT (3001, the first gateway; more replicas
# take the next ports), ADMIN_PORT_BASE (9100: gateway, +1 identify … +5 push, +6 research; extra replicas from +10),
# MAPVEST_BUILD (release), MAPVEST_BIN_DIR (use these binaries, skip the build), MAPVEST_LOCAL_DIR (.stack/local),
# LOG_FORMAT (text on a terminal: one coloured prefix per replica; JSON lines otherwise), LOG_LEVEL (warning on a
# terminal: the URL, each replica ready, failing requests and errors; info otherwise), TRACE_VIEWER=1 (print every
# trace as an indented tree; TRACE_VIEWER_PORT, 4318). Set KAFKA_BROKERS, POSTGRES_URL or REDIS_URL to use your own
# servers.
set -euo pipefail

# Started in the background (by a supervisor, CI, `cmd &`), a shell inherits SIGINT ignored, and bash cannot trap a
# signal ignored at start: re-exec once with INT and TERM at their defaults so the traps below always hold. HUP is
# left as inherited: `nohup scripts/run-local.sh &` means "keep running after logout".
if [ "${1:-}" != --supervise ] && [ "${1:-}" != --guard ] && [ "${MAPVEST_RUNNER_SIGNALS:-}" != reset ]; then
  exec env --default-signal=INT,TERM MAPVEST_RUNNER_SIGNALS=reset "$BASH" "$0" "$@"
fi
unset MAPVEST_RUNNER_SIGNALS
SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh

# Prefixes each line with the replica's tag (coloured on a terminal); passes JSON lines through untouched.
log_filter() {
  local tag=$1 colour=$2
  if [ "$pretty" = 0 ]; then
    cat
  elif [ -t 1 ]; then
    sed -u "s/^/$(printf '\033[%sm%-14s|\033[0m ' "$colour" "$tag")/"
  else
    sed -u "s/^/$(printf '%-14s| ' "$tag")/"
  fi
}

# announce_ready TAG ADMIN_PORT PID: says once when the replica answers /readyz (polls only until then, or until
# the process is gone), so a person sees each service come up, and come back after a restart.
announce_ready() {
  local tag=$1 admin=$2 pid=$3
  for _ in $(seq 1 600); do
    kill -0 "$pid" 2>/dev/null || return 0
    if curl -fs -m 1 "http://127.0.0.1:$admin/readyz" >/dev/null 2>&1; then
      stack_log "$tag ready"
      return 0
    fi
    sleep 0.2
  done
  stack_log "$tag not ready after 2 minutes (admin http://127.0.0.1:$admin/readyz)"
}

# supervise TAG COLOUR ADMIN_PORT PUBLIC_PORT BINARY: runs the binary, and restarts it with back-off (0.5 s doubling
# to 30 s; reset after a minute of uptime) whenever it exits, until it receives SIGTERM itself. Runs as its own
# process (`--supervise`) with the runner's death as its SIGTERM (PR_SET_PDEATHSIG via setpriv), and starts the
# binary with its supervisor's death as its SIGTERM: however the runner ends (even SIGKILL), nothing outlives it.
supervise() {
  local tag=$1 colour=$2 admin=$3 public=$4 bin=$5 child="" delay=0.5 restarts=0
  trap 'trap "" TERM; if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null; wait "$child" 2>/dev/null; fi; exit 0' TERM
  trap '' INT  # the main script stops supervisors with SIGTERM; services run in their own session (setsid)
  local env=(ADMIN_PORT="$admin")
  [ "$public" != - ] && env+=(PORT="$public")
  while true; do
    local started=$SECONDS rc=0
    # setsid: a terminal's Ctrl-C reaches only this script, which then stops every replica in order.
    setsid setpriv --pdeathsig TERM env "${env[@]}" "$BIN/$bin" > >(trap '' INT; log_filter "$tag" "$colour") 2>&1 &
    child=$!
    echo "$child" >"$RUN_DIR/pids/$tag.pid"
    announce_ready "$tag" "$admin" "$child" &
    wait "$child" 2>/dev/null || rc=$?
    child=""
    local ran=$((SECONDS - started)) why="exited with code $rc"
    [ "$rc" -gt 128 ] && why="was killed by signal $(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
    [ "$ran" -ge 60 ] && delay=0.5
    restarts=$((restarts + 1))
    stack_log "$tag $why after ${ran}s; restart #$restarts in ${delay}s"
    sleep "$delay" &
    wait $! || true
    delay=$(awk -v d="$delay" 'BEGIN { d *= 2; print (d > 30 ? 30 : d) }')
  done
}

# --supervise TAG COLOUR ADMIN_PORT PUBLIC_PORT BINARY BIN_DIR RUN_DIR PRETTY: one replica's supervisor.
if [ "${1:-}" = --supervise ]; then
  BIN=$7 RUN_DIR=$8 pretty=$9
  supervise "$2" "$3" "$4" "$5" "$6"
  exit 0
fi
# --guard: waits for the runner's death (its SIGTERM, by PR_SET_PDEATHSIG), then stops the broker, Postgres and
# Redis under STACK_DIR (a no-op after the runner's own shutdown stopped them).
if [ "${1:-}" = --guard ]; then
  trap '' INT HUP
  trap 'kill "$sleeper" 2>/dev/null; stack_stop; exit 0' TERM
  while true; do
    sleep 3600 &
    sleeper=$!
    wait "$sleeper" || true
  done
fi

services=(gateway identify nearby rating briefs push research)
declare -A binary=([gateway]=Gateway [identify]=Identify [nearby]=Nearby [rating]=Rating [briefs]=Briefs
  [push]=PushDispatcher [research]=Research)
declare -A replicas=()
for s in "${services[@]}"; do replicas[$s]=1; done

while [ $# -gt 0 ]; do
  case "$1" in
    --replicas)
      spec=${2:-}
      shift 2 || { stack_log "--replicas needs SERVICE=N"; exit 2; }
      svc=${spec%%=*} n=${spec#*=}
      [ "$svc" = pushdispatcher ] && svc=push
      if [ -z "${binary[$svc]:-}" ] || ! [[ "$n" =~ ^[1-9][0-9]?$ ]]; then
        stack_log "bad --replicas '$spec': want SERVICE=N with SERVICE in: ${services[*]} and N in 1…99"
        exit 2
      fi
      replicas[$svc]=$n
      ;;
    -h | --help)
      sed -n '2,15p' "$0" | cut -c3-
      exit 0
      ;;
    *)
      stack_log "unknown argument '$1' (try --help)"
      exit 2
      ;;
  esac
done

export MAPVEST_ENV=${MAPVEST_ENV:-dev}
PORT=${PORT:-3001}
ADMIN_PORT_BASE=${ADMIN_PORT_BASE:-9100}
RUN_DIR=${MAPVEST_LOCAL_DIR:-.stack/local}

# Human-readable logs on a terminal (or with LOG_FORMAT=text); JSON lines, unprefixed, for machines.
pretty=0
if [ "${LOG_FORMAT:-}" = text ] || { [ -z "${LOG_FORMAT:-}" ] && [ -t 1 ]; }; then pretty=1; fi
if [ $pretty = 1 ]; then export LOG_FORMAT=text; else export LOG_FORMAT=json; fi
# A person at a terminal reads warnings and errors (failing requests among them); every partition assignment and
# startup step stays available with LOG_LEVEL=info.
if [ $pretty = 1 ]; then export LOG_LEVEL=${LOG_LEVEL:-warning}; fi
colours=(36 33 35 32 34 91 96 93 95 92)

# One replica per line: TAG BINARY ADMIN_PORT PUBLIC_PORT (public port only for gateways, "-" otherwise).
plan=()
extra_admin=$((ADMIN_PORT_BASE + 10))
for i in "${!services[@]}"; do
  svc=${services[$i]}
  for r in $(seq 1 "${replicas[$svc]}"); do
    if [ "$r" = 1 ]; then admin=$((ADMIN_PORT_BASE + i)); else admin=$extra_admin; extra_admin=$((extra_admin + 1)); fi
    public=-
    [ "$svc" = gateway ] && public=$((PORT + r - 1))
    tag=$svc
    [ "${replicas[$svc]}" -gt 1 ] && tag=$svc.$r
    plan+=("$tag ${binary[$svc]} $admin $public")
  done
done

# A clear message, before anything starts, when a port the stack needs is taken.
port_taken() { (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; }
for entry in "${plan[@]}"; do
  read -r tag bin admin public <<<"$entry"
  for p in "$admin" "$public"; do
    [ "$p" = - ] && continue
    if port_taken "$p"; then
      holder=$(ss -Hltnp "sport = :$p" 2>/dev/null | sed -n 's/.*users:(("\([^"]*\)",pid=\([0-9]*\).*/\1 (pid \2)/p' | head -1)
      what="admin"
      [ "$p" = "$public" ] && what="public"
      stack_log "port $p ($tag $what port) is already in use${holder:+ by $holder}."
      stack_log "stop that process, or move this stack: PORT=<port> ADMIN_PORT_BASE=<port> scripts/run-local.sh"
      exit 1
    fi
  done
done

stack_install
if [ -n "${MAPVEST_BIN_DIR:-}" ]; then
  BIN=$MAPVEST_BIN_DIR
else
  CONFIG=${MAPVEST_BUILD:-release}
  swift build -c "$CONFIG"
  BIN=$(swift build -c "$CONFIG" --show-bin-path)
fi

supervisors=()
shutdown() {
  trap '' INT TERM HUP  # a second Ctrl-C must not skip stopping the stack
  trap - EXIT
  stack_log "stopping"
  for pid in "${supervisors[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${supervisors[@]}"; do wait "$pid" 2>/dev/null || true; done
  stack_stop
  exit 0
}
trap shutdown INT TERM HUP EXIT

stack_start "$RUN_DIR" "$BIN"
setpriv --pdeathsig TERM "$BASH" "$SELF" --guard &
# TRACE_VIEWER=1: a loopback OTLP receiver (TRACE_VIEWER_PORT, 4318) that prints each trace as an indented tree, and
# every service exports its spans to it (unless OTEL_EXPORTER_OTLP_ENDPOINT already names a collector).
if [ "${TRACE_VIEWER:-}" = 1 ] && [ -z "${OTEL_EXPORTER_OTLP_ENDPOINT:-}" ]; then
  source scripts/lib/py-ops.sh
  ops_venv
  viewer_port=${TRACE_VIEWER_PORT:-4318}
  if port_taken "$viewer_port"; then stack_log "port $viewer_port (trace viewer) is already in use"; exit 1; fi
  setpriv --pdeathsig TERM "$OPS_VENV/bin/python" scripts/checks/otlp_receiver.py --port "$viewer_port" &
  supervisors+=($!)
  export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$viewer_port OTEL_BSP_SCHEDULE_DELAY=${OTEL_BSP_SCHEDULE_DELAY:-500}
fi
mkdir -p "$RUN_DIR/pids"
rm -f "$RUN_DIR"/pids/*.pid
# Services first, gateways last (the gateway answers 504 until a service is up, so the order is only tidiness).
n=0
for entry in "${plan[@]:${replicas[gateway]}}" "${plan[@]:0:${replicas[gateway]}}"; do
  read -r tag bin admin public <<<"$entry"
  setpriv --pdeathsig TERM "$BASH" "$SELF" --supervise "$tag" "${colours[$((n % ${#colours[@]}))]}" "$admin" "$public" \
    "$bin" "$BIN" "$RUN_DIR" "$pretty" &
  supervisors+=($!)
  n=$((n + 1))
done

for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
stack_log "gateway: http://127.0.0.1:$PORT  (try: curl http://127.0.0.1:$PORT/v1/health); Ctrl-C stops everything"
stack_log "replicas: $(for e in "${plan[@]}"; do read -r t _ a p <<<"$e"; printf '%s(admin %s%s) ' "$t" "$a" \
  "$([ "$p" = - ] || echo ", http $p")"; done)"
wait
