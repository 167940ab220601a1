#!/usr/bin/env bash
# Push delivery benchmark: builds Tools/PushBench in release mode, starts Postgres, Redis and the dev broker on
# loopback (fresh, under .stack/bench-push) unless POSTGRES_URL and REDIS_URL are already set, and prints tokens/s
# handed to a loopback Expo fake with 1 and 3 dispatcher replicas (pace lifted), the p50/p99 advisory-lock hold
# time, and the same with the 600/s pace on. Knobs: BENCH_TOKENS, BENCH_PACED_TOKENS, BENCH_REQUESTS_IN_FLIGHT,
# PUSH_MAX_CONCURRENT_HANDOFFS; SCRATCH_PATH picks the build directory. BENCH_SCALE="1000 10000 100000" prints the
# fan-out's scale curve instead (tokens/s, Postgres statements per token, peak RSS per size; Postgres then preloads
# pg_stat_statements).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh

scratch=(--scratch-path "${SCRATCH_PATH:-.build}")
swift build -c release "${scratch[@]}" --product PushBench
BIN=$(swift build -c release "${scratch[@]}" --show-bin-path)

if [ -z "${POSTGRES_URL:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  swift build -c release "${scratch[@]}" --product DevBroker
  stack_install
  [ -z "${BENCH_SCALE:-}" ] || export STACK_PG_EXTRA_OPTIONS="-c shared_preload_libraries=pg_stat_statements"
  rm -rf .stack/bench-push
  trap stack_stop EXIT
  stack_start .stack/bench-push "$BIN"
fi
export MAPVEST_ENV=dev
"$BIN/PushBench"
