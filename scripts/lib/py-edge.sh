# Python tools of the edge harness, in a virtualenv under .stack/venv (PyPI, pinned). Source it; it defines
# functions only. Used by scripts/test.sh and scripts/api-fuzz.sh.

SCHEMATHESIS_VERSION=4.32.5

# Creates .stack/venv with schemathesis $SCHEMATHESIS_VERSION unless it is there already; prints the venv's bin dir.
py_edge_venv() {
  local venv=.stack/venv
  if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
    printf '[py-edge] installing schemathesis %s into %s\n' "$SCHEMATHESIS_VERSION" "$venv" >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
  fi
  echo "$venv/bin"
}
