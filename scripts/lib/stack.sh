# Shared by scripts/run-local.sh and scripts/test.sh: installs what is missing and starts (or stops) a local
# Kafka-protocol broker, Postgres and Redis on loopback. Source it; it defines functions only.

# Debian packages the build, the services and the tests need.
MAPVEST_PACKAGES=(librdkafka-dev libpq-dev libcurl4-openssl-dev libhiredis-dev libmicrohttpd-dev libssl-dev
  postgresql redis-server kcat tesseract-ocr tesseract-ocr-eng libtesseract-dev imagemagick fonts-dejavu-core
  libcairo2-dev tzdata)
MAPVEST_PACKAGES+=(prometheus python3-venv curl)  # promtool and the checks' virtualenv (scripts/lib/py-ops.sh)
MAPVEST_PACKAGES+=(prometheus-alertmanager)  # amtool, which checks deploy/alertmanager (scripts/lib/py-ops.sh)

stack_log() { printf '[stack] %s\n' "$*" >&2; }

# Installs the Debian packages that are missing (needs root, as on CI and dev machines here).
stack_install() {
  local missing=()
  for p in "${MAPVEST_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    stack_log "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# Every process of the stack (DevBroker, the services, the test binaries) runs on librdkafka 2.16.1, the shared
# object of the pinned PyPI wheel, cached under .stack/cache and put first on LD_LIBRARY_PATH (decision 0059:
# Debian's 2.0.2, which the binaries are built against, drops a consumer's assignment when a commit meets a
# rebalance; the 2.16 mock cluster is also far faster in the tail, docs/BENCHMARKS.md). Same soname and ABI; the
# wheel's library exports only rd_kafka symbols. RDKAFKA_WHEEL= (empty) runs everything on Debian's.
RDKAFKA_WHEEL=${RDKAFKA_WHEEL-confluent-kafka==2.16.1}

# stack_rdkafka_libdir: prints a folder holding the wheel's librdkafka as librdkafka.so.1, fetching and
# unpacking the wheel once; prints nothing (Debian's is then used) when it cannot be had.
stack_rdkafka_libdir() {
  local cache lib
  [ -n "$RDKAFKA_WHEEL" ] || return 0
  cache="$(pwd)/.stack/cache/${RDKAFKA_WHEEL/==/-}"
  if [ ! -e "$cache/lib/librdkafka.so.1" ]; then
    mkdir -p "$cache/wheel" "$cache/lib"
    if ! ls "$cache"/wheel/*.whl >/dev/null 2>&1; then
      python3 -m pip download -q --timeout 15 --no-deps --only-binary=:all: "$RDKAFKA_WHEEL" -d "$cache/wheel" \
        >"$cache/pip.log" 2>&1 || { stack_log "no $RDKAFKA_WHEEL wheel (see $cache/pip.log)"; return 0; }
    fi
    python3 - "$cache" <<'PY' || { stack_log "cannot unpack the $RDKAFKA_WHEEL wheel"; return 0; }
import glob, os, sys, zipfile
cache = sys.argv[1]
with zipfile.ZipFile(sorted(glob.glob(os.path.join(cache, "wheel", "*.whl")))[-1]) as wheel:
    name = next(n for n in wheel.namelist() if n.startswith("confluent_kafka.libs/librdkafka-") and ".so" in n)
    target = os.path.join(cache, "lib", os.path.basename(name))
    with wheel.open(name) as src, open(target, "wb") as dst:
        dst.write(src.read())
link = os.path.join(cache, "lib", "librdkafka.so.1")
if os.path.lexists(link):
    os.remove(link)
os.symlink(os.path.basename(target), link)
PY
  fi
  lib="$cache/lib"
  # Only a library that loads on this machine is used; otherwise Debian's is.
  if python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]).rd_kafka_version_str' "$lib/librdkafka.so.1" 2>/dev/null; then
    echo "$lib"
  else
    stack_log "the $RDKAFKA_WHEEL librdkafka does not load here; the stack uses Debian's"
  fi
}

# A free TCP port on 127.0.0.1.
stack_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# stack_start DIR BIN_DIR: starts the broker, Postgres and Redis with data under DIR and exports
# KAFKA_BROKERS, POSTGRES_URL, REDIS_URL. Idempotent per DIR only after stack_stop.
stack_start() {
  local dir=$1 bin=$2
  mkdir -p "$dir"
  STACK_DIR=$(cd "$dir" && pwd)
  export STACK_DIR

  # librdkafka for every process started from here on (see RDKAFKA_WHEEL above).
  local rdkafka_dir
  rdkafka_dir=$(stack_rdkafka_libdir)
  if [ -n "$rdkafka_dir" ]; then
    LD_LIBRARY_PATH="$rdkafka_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
  fi
  export MAPVEST_DEV_BROKER_LIBDIR=$rdkafka_dir  # tests that start a private DevBroker use it too

  # Kafka-protocol broker: librdkafka's mock cluster hosted by DevBroker (INFRA.md). KAFKA_BROKERS set by the
  # caller means a real cluster: then nothing is started.
  if [ -z "${KAFKA_BROKERS:-}" ]; then
    rm -f "$STACK_DIR/kafka.bootstrap"
    if [ -z "$rdkafka_dir" ]; then
      # Debian's mock delays a group's first join 3 s: the dev profile's 1.5 s session would expire its members.
      export KAFKA_CONFIG_SESSION_TIMEOUT_MS=6000 KAFKA_CONFIG_HEARTBEAT_INTERVAL_MS=2000
    fi
    "$bin/DevBroker" "$STACK_DIR/kafka.bootstrap" >"$STACK_DIR/broker.log" 2>&1 &
    echo $! >"$STACK_DIR/broker.pid"
    for _ in $(seq 1 100); do [ -s "$STACK_DIR/kafka.bootstrap" ] && break; sleep 0.05; done
    [ -s "$STACK_DIR/kafka.bootstrap" ] || { stack_log "broker did not start; see $STACK_DIR/broker.log"; return 1; }
    KAFKA_BROKERS=$(cat "$STACK_DIR/kafka.bootstrap")
    export KAFKA_BROKERS
  fi

  # Postgres (initdb refuses root: run it as the postgres user). Its data must be reachable by that user.
  if [ -z "${POSTGRES_URL:-}" ]; then
    local pgbin=/usr/lib/postgresql/15/bin pgdir="$STACK_DIR/pg" pgport
    if ! runuser -u postgres -- test -x "$STACK_DIR" 2>/dev/null; then
      pgdir=$(mktemp -d /tmp/mapvest-pg.XXXXXX)
      echo "$pgdir" >"$STACK_DIR/pg.external"
    fi
    pgport=$(stack_free_port)
    mkdir -p "$pgdir" && chown postgres: "$pgdir"
    if [ ! -f "$pgdir/data/PG_VERSION" ]; then
      echo mapvest >"$pgdir/pwfile" && chown postgres: "$pgdir/pwfile"
      runuser -u postgres -- "$pgbin/initdb" -D "$pgdir/data" -U postgres --pwfile="$pgdir/pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-sync >"$STACK_DIR/initdb.log" 2>&1 \
        || { stack_log "initdb failed; see $STACK_DIR/initdb.log"; return 1; }
    fi
    # Exported for fault trials that stop and start Postgres on the same port (Tests/TestSupport/StackFaults.swift).
    STACK_PG_OPTIONS="-c listen_addresses=127.0.0.1 -p $pgport -k $pgdir -c fsync=off -c max_connections=300"
    # Extra server options from a caller, e.g. a benchmark's `-c shared_preload_libraries=pg_stat_statements`.
    STACK_PG_OPTIONS="$STACK_PG_OPTIONS${STACK_PG_EXTRA_OPTIONS:+ $STACK_PG_EXTRA_OPTIONS}"
    export STACK_PG_OPTIONS
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w \
      -o "$STACK_PG_OPTIONS" start >/dev/null \
      || { stack_log "postgres did not start; see $pgdir/server.log"; return 1; }
    echo "$pgdir" >"$STACK_DIR/pg.dir"
    runuser -u postgres -- psql -h "$pgdir" -p "$pgport" -U postgres -qtc "SELECT 1 FROM pg_database WHERE datname='mapvest'" \
      | grep -q 1 || runuser -u postgres -- psql -h "$pgdir" -p "$pgport" -U postgres -qc "CREATE DATABASE mapvest" >/dev/null
    POSTGRES_URL="postgres://postgres:mapvest@127.0.0.1:$pgport/mapvest"
    export POSTGRES_URL
  fi

  # Redis: nothing durable lives there.
  if [ -z "${REDIS_URL:-}" ]; then
    local rport
    rport=$(stack_free_port)
    redis-server --bind 127.0.0.1 --port "$rport" --save '' --appendonly no --daemonize yes \
      --pidfile "$STACK_DIR/redis.pid" --logfile "$STACK_DIR/redis.log" --dir "$STACK_DIR" >/dev/null
    for _ in $(seq 1 100); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.05; done
    echo "$rport" >"$STACK_DIR/redis.port"
    REDIS_URL="redis://127.0.0.1:$rport"
    export REDIS_URL
  fi
  stack_log "broker $KAFKA_BROKERS · postgres ${POSTGRES_URL##*@} · redis $REDIS_URL"
}

# Stops what stack_start started under STACK_DIR.
stack_stop() {
  [ -n "${STACK_DIR:-}" ] || return 0
  if [ -f "$STACK_DIR/redis.port" ]; then
    redis-cli -p "$(cat "$STACK_DIR/redis.port")" shutdown nosave >/dev/null 2>&1 || true
    rm -f "$STACK_DIR/redis.port"
  fi
  if [ -f "$STACK_DIR/pg.dir" ]; then
    local pgdir
    pgdir=$(cat "$STACK_DIR/pg.dir")
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -f "$STACK_DIR/pg.dir"
    if [ -f "$STACK_DIR/pg.external" ]; then rm -rf "$(cat "$STACK_DIR/pg.external")" "$STACK_DIR/pg.external"; fi
  fi
  if [ -f "$STACK_DIR/broker.pid" ]; then
    kill "$(cat "$STACK_DIR/broker.pid")" 2>/dev/null || true
    rm -f "$STACK_DIR/broker.pid"
  fi
}
