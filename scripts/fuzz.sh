#!/usr/bin/env bash
# Builds the libFuzzer targets of the parsers that face the network (Fuzz/Targets/*.swift) with plain swiftc —
# outside the SwiftPM build — against the gateway's library (GatewayKit, `@testable`) and the modules under it, every
# one instrumented, and runs each target for a bounded time from its seed corpus (Fuzz/corpus/<target>/).
# Any crash, trap or sanitizer report fails the script; the input that caused it lands in .stack/fuzz/crashes/.
# Usage: scripts/fuzz.sh [seconds per target (default 15)] [target ...]   (targets: multipart request-head
#        json-bodies jwt).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-15}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(multipart request-head json-bodies jwt)

OUT=.stack/fuzz
MODS=$OUT/modules
mkdir -p "$MODS" "$OUT/crashes" "$OUT/work"
# -Onone: the build takes a third of -O's time on this box, and 15 s still runs ~10^5 inputs per target.
# The C libraries' module maps, and their headers where pkg-config knows them (libpq's live in a subfolder).
CFLAGS=()
for dir in Shared/CLibs/*/; do CFLAGS+=(-I "${dir%/}"); done
for flag in $(pkg-config --cflags-only-I libpq rdkafka hiredis libcurl libmicrohttpd libcrypto 2>/dev/null); do
  CFLAGS+=(-Xcc "$flag")
done
FLAGS=(-sanitize=fuzzer,address -parse-as-library -package-name Mapvest -g -Onone -I "$MODS" "${CFLAGS[@]}" -L "$MODS")
log() { printf '[fuzz] %s\n' "$*" >&2; }
quiet() { grep -v -e 'Cannot export local symbol' -e '^warning: ' || true; }

# One fuzz binary over every target (FUZZ_TARGET picks one), rebuilt only when a source or flag changed.
# The modules in dependency order, each as `name:folder`.
MODULES=(Runtime:Shared/Platform/Runtime Tracing:Shared/Platform/Tracing Contracts:Shared/Platform/Contracts Crypto:Shared/Infrastructure/Crypto HTTPServer:Shared/Infrastructure/HTTPServer
  HTTPClient:Shared/Infrastructure/HTTPClient Kafka:Shared/Infrastructure/Kafka Messaging:Shared/Infrastructure/Messaging Postgres:Shared/Infrastructure/Postgres
  Redis:Shared/Infrastructure/Redis ServiceKit:Shared/Platform/ServiceKit Geo:Shared/Domain/Geo Finance:Shared/Domain/Finance MoneyCore:Services/Gateway/MoneyCore ResearchCore:Services/Research/Core MCP:Services/Gateway/MCPServer
  GatewayKit:Services/Gateway/Kit)
sources() { find "$1" -name '*.swift' | sort; }
BINARY=$OUT/fuzz
stamp=$( (for m in "${MODULES[@]}"; do sources "${m#*:}"; done; echo Fuzz/Targets/*.swift scripts/fuzz.sh) |
  xargs cat | sha256sum | cut -c1-16)
if [ ! -x "$BINARY" ] || [ "$(cat "$OUT/stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -f "$BINARY" "$OUT/stamp"
  log "building (once per source change)"
  libs=()
  for m in "${MODULES[@]}"; do
    name=${m%%:*}
    dir=${m#*:}
    rm -f "$MODS/lib$name.a"
    # Instrumented too: coverage guides the fuzzer through them. GatewayKit is testable: the targets call its
    # internal validators.
    testing=()
    [ "$name" = GatewayKit ] && testing=(-enable-testing)
    mapfile -t files < <(sources "$dir")
    swiftc "${FLAGS[@]}" "${testing[@]}" -emit-library -static -emit-module -module-name "$name" \
      -emit-module-path "$MODS/$name.swiftmodule" -o "$MODS/lib$name.a" "${files[@]}" 2>&1 | quiet
    [ -f "$MODS/lib$name.a" ] || { log "module $name did not build"; exit 1; }
    libs=(-l"$name" "${libs[@]}")
  done
  swiftc "${FLAGS[@]}" -module-name Fuzz -o "$BINARY" Fuzz/Targets/*.swift "${libs[@]}" \
    -lrdkafka -lpq -lhiredis -lcurl -lmicrohttpd -lcrypto 2>&1 | quiet
  [ -x "$BINARY" ] || { log "the fuzz binary did not build"; exit 1; }
  echo "$stamp" >"$OUT/stamp"
fi

status=0
for target in "${TARGETS[@]}"; do
  mkdir -p "$OUT/work/$target" "Fuzz/corpus/$target"
  log "running $target for ${SECONDS_PER_TARGET}s"
  if ! FUZZ_TARGET=$target "$BINARY" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$OUT/crashes/$target-" "$OUT/work/$target" \
    "Fuzz/corpus/$target" >"$OUT/$target.log" 2>&1; then
    tail -60 "$OUT/$target.log" >&2
    log "$target FAILED: the input is in $OUT/crashes/ (replay: FUZZ_TARGET=$target $BINARY <file>)"
    status=1
  else
    log "$target: $(grep -E '^stat::number_of_executed_units' "$OUT/$target.log" | awk '{print $2}') runs, no crash"
  fi
done
exit "$status"
