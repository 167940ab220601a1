#!/usr/bin/env bash
# Builds the libFuzzer targets of the parsers that face the network (Fuzz/Targets/*.swift) with plain swiftc —
# outside the SwiftPM build — and runs each for a bounded time from its seed corpus (Fuzz/corpus/<target>/).
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
FLAGS=(-sanitize=fuzzer,address -parse-as-library -package-name Mapvest -g -Onone -I "$MODS"
  -I Shared/CLibs/CCrypto -I Shared/CLibs/CMicroHTTPD -L "$MODS")
log() { printf '[fuzz] %s\n' "$*" >&2; }
quiet() { grep -v -e 'Cannot export local symbol' -e '^warning: ' || true; }

# One fuzz binary over every target (FUZZ_TARGET picks one), rebuilt only when a source or flag changed.
SOURCES=(Shared/Runtime/*.swift Shared/Contracts/*.swift Shared/Crypto/*.swift Shared/HTTPServer/*.swift
  Services/Gateway/Kit/Input/*.swift Services/Gateway/Kit/Auth/SessionTokens.swift Fuzz/Targets/*.swift)
BINARY=$OUT/fuzz
stamp=$(cat "${SOURCES[@]}" scripts/fuzz.sh | sha256sum | cut -c1-16)
if [ ! -x "$BINARY" ] || [ "$(cat "$OUT/stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -f "$BINARY" "$OUT/stamp"
  # The shared modules the gateway's parsers use, instrumented too (coverage guides the fuzzer through them).
  module() {
    local name=$1 dir=$2
    swiftc "${FLAGS[@]}" -emit-library -static -emit-module -module-name "$name" \
      -emit-module-path "$MODS/$name.swiftmodule" -o "$MODS/lib$name.a" "$dir"/*.swift 2>&1 | quiet
    [ -f "$MODS/lib$name.a" ] || { log "module $name did not build"; exit 1; }
  }
  log "building (once per source change)"
  module Runtime Shared/Runtime
  module Contracts Shared/Contracts
  module Crypto Shared/Crypto
  module HTTPServer Shared/HTTPServer
  swiftc "${FLAGS[@]}" -module-name Fuzz -o "$BINARY" Fuzz/Targets/*.swift Services/Gateway/Kit/Input/*.swift \
    Services/Gateway/Kit/Auth/SessionTokens.swift -lHTTPServer -lCrypto -lContracts -lRuntime -lmicrohttpd -lcrypto 2>&1 | quiet
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
