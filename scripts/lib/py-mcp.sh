# The official MCP Python SDK (PyPI `mcp`, pinned) in a venv under .stack/venv, for the test that drives the
# gateway with a real MCP client. Sourced by scripts/test.sh; never fails the run: on any install failure it
# prints why and leaves MCP_PYTHON unset, and the test skips with that reason.
MCP_SDK_VERSION=2.3.0

# mcp_python_install: exports MCP_PYTHON (the venv's interpreter) when the SDK imports.
mcp_python_install() {
  local venv=.stack/venv
  unset MCP_PYTHON
  if ! command -v python3 >/dev/null 2>&1; then
    echo "py-mcp: python3 not found; the MCP SDK client test will skip"
    return 0
  fi
  if [ ! -x "$venv/bin/python" ] && ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "py-mcp: cannot create $venv (python3 -m venv failed); the MCP SDK client test will skip"
    return 0
  fi
  if ! "$venv/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_SDK_VERSION'" \
    >/dev/null 2>&1; then
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_SDK_VERSION" \
      >"$venv/pip.log" 2>&1; then
      echo "py-mcp: pip install mcp==$MCP_SDK_VERSION failed (see $venv/pip.log); the MCP SDK client test will skip"
      return 0
    fi
  fi
  MCP_PYTHON="$PWD/$venv/bin/python"
  export MCP_PYTHON
}
