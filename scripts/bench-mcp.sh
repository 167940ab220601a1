#!/usr/bin/env bash
# Prints p50/p99 of MCP tool calls through the gateway at a fixed rate (open loop; release build, real broker,
# Postgres and Redis): `tools/call brand_lookup` (answered in the gateway from the seed) and `tools/call
# search_intent` (the same Kafka command as POST /v1/search/intent, answered by Rating; the intent cache is warm).
# Usage: scripts/bench-mcp.sh [duration-seconds (default 10)] [rate/s (default 500)]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
DURATION=${1:-10}
RATE=${2:-500}

bench_build .stack/bench-build.log
bench_stack .stack/bench-mcp

PORT=$(stack_free_port)
ADMIN_PORT=$(stack_free_port) JEV_API_KEY= MASSIVE_API_KEY= "$BIN/Rating" 2>.stack/bench-mcp/rating.log & pids+=($!)
PORT=$PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID=bench-mcp GATEWAY_LIMITS=off "$BIN/Gateway" \
  2>.stack/bench-mcp/gateway.log & pids+=($!)
bench_wait_ready "$PORT"

call() { printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2"; }
call brand_lookup '{"brand":"Starbucks"}' >.stack/bench-mcp/brand.json
call search_intent '{"query":"Starbucks"}' >.stack/bench-mcp/intent.json
MCP="http://127.0.0.1:$PORT/mcp"
# Warm up: the first commands wait for Rating's consumer group to settle, and the first answer fills the cache.
"$BIN/LoadGen" "$MCP" 5 4 --method POST --body-file .stack/bench-mcp/intent.json \
  --header "Content-Type: application/json" --label "warm-up" >/dev/null
echo "== open loop at ${RATE}/s for ${DURATION}s"
"$BIN/LoadGen" "$MCP" "$RATE" "$DURATION" --method POST --body-file .stack/bench-mcp/brand.json \
  --header "Content-Type: application/json" --label "MCP tools/call brand_lookup (seed, in the gateway)"
"$BIN/LoadGen" "$MCP" "$RATE" "$DURATION" --method POST --body-file .stack/bench-mcp/intent.json \
  --header "Content-Type: application/json" --label "MCP tools/call search_intent (Kafka round trip to Rating)"
