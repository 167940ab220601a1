#!/usr/bin/env bash
# Runs every test against a real stack: installs missing Debian packages, builds warning-free, starts a
# Kafka-protocol broker, Postgres and Redis on loopback (fresh data under .stack/test), runs `swift test`,
# and stops what it started; with no arguments (or EDGE_HARNESS=1) it also runs the edge harness (schemathesis,
# fuzzers). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/py-ops.sh
source scripts/lib/py-edge.sh

stack_install
python3 scripts/checks/imports.py  # declared target dependencies = imported modules (Package.swift)
python3 scripts/checks/environment.py  # every environment variable the code reads is in docs/CONFIGURATION.md
scripts/format.sh --check  # sources as .swift-format says (scripts/format.sh rewrites them)
export MAPVEST_ENV=dev
swift build -Xswiftc -warnings-as-errors
swift build --build-tests -Xswiftc -warnings-as-errors
MAPVEST_BIN_DIR=$(swift build --show-bin-path)
export MAPVEST_BIN_DIR

unset KAFKA_BROKERS POSTGRES_URL REDIS_URL
# The dev broker's retention deletes by age: keep every record of the run, for the fault trials' stopped consumers and
# for the event-catalogue check, which reads all traffic from offset 0 after the suite.
export DEV_BROKER_RETENTION_S=${DEV_BROKER_RETENTION_S:-0}
rm -rf .stack/test
trap stack_stop EXIT
stack_start .stack/test "$MAPVEST_BIN_DIR"

source scripts/lib/py-mcp.sh
mcp_python_install

# Serial: many tests bound real timeouts and budgets, and two cores under a fully parallel suite distort them.
swift test --skip-build --no-parallel "$@"

# Operations checks (event catalogue, promtool, outside consumer and producer, run-local): after the whole suite, or
# after a filtered run with MAPVEST_OPS_CHECKS=1.
if [ $# -eq 0 ] || [ -n "${MAPVEST_OPS_CHECKS:-}" ]; then ops_checks; fi
# The edge harness (issue 13), with the whole suite or EDGE_HARNESS=1: schemathesis against every route with our
# OpenAPI document (docs/openapi.yaml), then bounded libFuzzer runs of the parsers that face the network.
if [ $# -eq 0 ] || [ "${EDGE_HARNESS:-}" = 1 ]; then
  py_edge_api_trial "$MAPVEST_BIN_DIR"
  scripts/fuzz.sh "${FUZZ_SECONDS:-15}"
fi
