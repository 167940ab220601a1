#!/usr/bin/env bash
# Identify through the whole system (release build, real broker, Postgres, Redis):
#   1. the vision path against a loopback OpenRouter fake with a fixed latency — p50/p99 minus that latency is our
#      overhead (gateway, claim check, Kafka both ways, resolution, reply);
#   2. the offline OCR path (no OpenRouter key) on a photo of a storefront name drawn by ImageMagick: time per photo.
# Usage: scripts/bench-identify.sh [seconds (default 10)] [vision rate/s (default 50)] [fake latency ms (default 200)]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/stack.sh
source scripts/lib/bench.sh
DURATION=${1:-10}
RATE=${2:-50}
LATENCY=${3:-200}

bench_build .stack/bench-build.log
bench_stack .stack/bench-identify
D=.stack/bench-identify

FAKE_PORT=$(stack_free_port)
FAKE_LATENCY_MS=$LATENCY python3 scripts/fakes/openrouter.py "$FAKE_PORT" >/dev/null 2>&1 & pids+=($!)
start_pair() { # $1 = name, rest = env for Identify; sets PAIR_PORT and PAIR_PIDS
  local name=$1; shift
  PAIR_PORT=$(stack_free_port)
  env "$@" ADMIN_PORT="$(stack_free_port)" "$BIN/Identify" >/dev/null 2>"$D/identify-$name.log" &
  PAIR_PIDS=($!)
  PORT=$PAIR_PORT ADMIN_PORT=$(stack_free_port) GATEWAY_INSTANCE_ID="bench-$name" GATEWAY_LIMITS=off \
    "$BIN/Gateway" >/dev/null 2>"$D/gateway-$name.log" &
  PAIR_PIDS+=($!)
  pids+=("${PAIR_PIDS[@]}")
  bench_wait_ready "$PAIR_PORT"
}
multipart() { # $1 = image file, $2 = output
  local b=benchboundary
  { printf -- "--%s\r\nContent-Disposition: form-data; name=\"image\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n" "$b"
    cat "$1"; printf -- "\r\n--%s--\r\n" "$b"; } >"$2"
}
convert -size 900x320 xc:white -font DejaVu-Sans-Bold -pointsize 130 -fill black -annotate +30+220 STARBUCKS "$D/sign.png"
multipart "$D/sign.png" "$D/sign.body"
CT="Content-Type: multipart/form-data; boundary=benchboundary"

echo "== vision path (OpenRouter fake at ${LATENCY} ms), ${RATE}/s for ${DURATION}s"
start_pair vision OPENROUTER_API_KEY=bench OPENROUTER_BASE_URL="http://127.0.0.1:$FAKE_PORT" OCR_WORKERS=0
VPORT=$PAIR_PORT
sleep 3
"$BIN/LoadGen" "http://127.0.0.1:$VPORT/v1/identify" 2 3 --method POST --body-file "$D/sign.body" --header "$CT" --header "X-Device-Id: warm" --label "warm-up" >/dev/null
"$BIN/LoadGen" "http://127.0.0.1:$VPORT/v1/identify" "$RATE" "$DURATION" --method POST --body-file "$D/sign.body" \
  --header "$CT" --header "X-Device-Id: bench" --label "identify via vision fake (subtract ${LATENCY} ms for our overhead)"
for pid in "${PAIR_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
sleep 8

echo "== offline OCR path (Tesseract, 2 workers), 2/s for ${DURATION}s"
start_pair ocr OCR_WORKERS=2
OPORT=$PAIR_PORT
sleep 3
"$BIN/LoadGen" "http://127.0.0.1:$OPORT/v1/identify" 2 "$DURATION" --method POST --body-file "$D/sign.body" \
  --header "$CT" --header "X-Device-Id: bench-ocr" --label "identify via OCR (900x320 PNG)"
