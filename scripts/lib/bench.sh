# What every benchmark script shares (sourced after scripts/lib/stack.sh):
#   bench_build LOG PRODUCT...   builds the products (all of them when none is named) in BENCH_CONFIG (release)
#                                under SCRATCH_PATH (.build), sets BIN; prints the log's tail and exits on failure
#   bench_stack DIR              a fresh dev stack (broker, Postgres, Redis) with data under DIR; `pids` collects
#                                what the script starts, and everything stops when the script exits
BENCH_CONFIG=${BENCH_CONFIG:-release}
SCRATCH_PATH=${SCRATCH_PATH:-.build}

bench_build() {
  local log=$1
  shift
  stack_install
  mkdir -p .stack
  local products=("$@")
  [ ${#products[@]} -gt 0 ] || products=("")
  for product in "${products[@]}"; do
    swift build -c "$BENCH_CONFIG" --scratch-path "$SCRATCH_PATH" ${product:+--product "$product"} >"$log" 2>&1 \
      || { tail -40 "$log"; exit 1; }
  done
  BIN=$(swift build -c "$BENCH_CONFIG" --scratch-path "$SCRATCH_PATH" --show-bin-path)
}

pids=()
bench_cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  stack_stop
}

bench_stack() {
  # The dev broker's retention deletes by age, read or not: a benchmark's backlog (10,000 scheduled commands) must
  # outlive it, so benchmarks keep every record unless told otherwise.
  export MAPVEST_ENV=dev LOG_LEVEL=warning DEV_BROKER_RETENTION_S=${DEV_BROKER_RETENTION_S:-0}
  unset KAFKA_BROKERS POSTGRES_URL REDIS_URL
  rm -rf "$1"
  mkdir -p "$1"
  trap bench_cleanup EXIT
  stack_start "$1" "$BIN"
}

# bench_wait_ready PORT: waits up to 30 s for the gateway (or admin server) on PORT to answer /readyz.
bench_wait_ready() {
  for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "bench: nothing ready on port $1 after 30 s" >&2
  return 1
}
