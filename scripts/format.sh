#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's `swift format` and the repository's `.swift-format`.
#   scripts/format.sh            rewrite every file in place
#   scripts/format.sh --check    change nothing; list what would change, exit 1 if anything would
#   scripts/format.sh [--check] PATH...   only these files or folders
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
if [[ "${1:-}" == "--check" ]]; then
    check=1
    shift
fi
paths=("$@")
if [[ ${#paths[@]} -eq 0 ]]; then
    paths=(Package.swift Services Shared Tests Tools Fuzz)
fi
existing=()
for p in "${paths[@]}"; do [[ -e "$p" ]] && existing+=("$p"); done

mapfile -t files < <(find "${existing[@]}" -name '*.swift' -not -path '*/.build/*' | sort)
if [[ ${#files[@]} -eq 0 ]]; then
    echo "format.sh: no Swift files under ${existing[*]}" >&2
    exit 1
fi

if [[ $check -eq 0 ]]; then
    swift format format --configuration .swift-format --parallel --in-place "${files[@]}"
    echo "formatted ${#files[@]} files"
    exit 0
fi

changed=0
for f in "${files[@]}"; do
    if ! swift format format --configuration .swift-format "$f" | cmp -s - "$f"; then
        echo "would reformat: $f"
        changed=$((changed + 1))
    fi
done
if [[ $changed -gt 0 ]]; then
    echo "format.sh: $changed of ${#files[@]} files are not formatted (run scripts/format.sh)" >&2
    exit 1
fi
echo "all ${#files[@]} files formatted"
