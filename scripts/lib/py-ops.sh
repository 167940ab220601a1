# The operations checks run by scripts/test.sh after `swift test`, against the stack it started: the event
# catalogue and the traffic of the suite, Prometheus rules (promtool), and a run-local stack driven from outside
# (a Python Kafka consumer, a kcat-published command, live /metrics, restarts). Source it; it defines functions only.

OPS_VENV=.stack/venv

# Creates (or refreshes, when scripts/checks/requirements.txt changed) the checks' virtualenv in .stack/venv.
ops_venv() {
  local stamp="$OPS_VENV/.requirements" wanted
  wanted=$(sha256sum scripts/checks/requirements.txt | cut -d' ' -f1)
  if [ -x "$OPS_VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then return 0; fi
  stack_log "installing the checks' Python packages into $OPS_VENV"
  rm -rf "$OPS_VENV"
  python3 -m venv "$OPS_VENV"
  "$OPS_VENV/bin/pip" install -q --disable-pip-version-check -r scripts/checks/requirements.txt
  echo "$wanted" >"$stamp"
}

# ops_step NAME COMMAND...: runs one check, prints its result, and records a failure without stopping the others.
ops_step() {
  local name=$1 started=$SECONDS
  shift
  printf '\n== %s\n' "$name"
  if "$@"; then
    printf -- '-- PASS %s (%ss)\n' "$name" $((SECONDS - started))
    OPS_PASSED+=("$name")
  else
    printf -- '-- FAIL %s (%ss)\n' "$name" $((SECONDS - started))
    OPS_FAILED+=("$name")
  fi
}

# promtool's syntax and semantics check of the rules, then their unit tests (the alerts fire on what they watch);
# amtool's check of the Alertmanager configuration, and that every alert of the rules reaches the Slack receiver.
ops_promtool() {
  promtool check rules deploy/prometheus/mapvest.rules.yaml && promtool test rules deploy/prometheus/mapvest.rules.test.yaml \
    && amtool check-config deploy/alertmanager/alertmanager.yaml && ops_alert_routes
}

ops_alert_routes() {
  local rule severity
  while read -r rule severity; do
    amtool config routes test --config.file=deploy/alertmanager/alertmanager.yaml \
      --verify.receivers=slack-mapvest-alerts alertname="$rule" severity="$severity" >/dev/null 2>&1 \
      || { echo "alert $rule ($severity) does not reach slack-mapvest-alerts"; return 1; }
  done < <(awk '/- alert:/ { name = $3 } /severity:/ && name { gsub(/[{}]/, ""); print name, $NF; name = "" }' \
    deploy/prometheus/mapvest.rules.yaml)
}

# Runs every operations check; returns non-zero when one failed. Needs the stack's KAFKA_BROKERS, POSTGRES_URL,
# REDIS_URL and MAPVEST_BIN_DIR.
ops_checks() {
  OPS_PASSED=() OPS_FAILED=()
  ops_venv
  ops_step "Prometheus rules (promtool check rules, test rules)" ops_promtool
  ops_step "Grafana dashboard and runbook links" "$OPS_VENV/bin/python" scripts/checks/alerting.py
  ops_step "run-local stack: outside consumer and producer, live metrics, restarts" \
    "$OPS_VENV/bin/python" scripts/checks/live_stack.py
  ops_step "event catalogue against the suite's traffic" "$OPS_VENV/bin/python" scripts/checks/catalogue.py
  printf '\nops checks: %s of %s steps ok%s\n' "${#OPS_PASSED[@]}" $((${#OPS_PASSED[@]} + ${#OPS_FAILED[@]})) \
    "$([ ${#OPS_FAILED[@]} -eq 0 ] || printf '; failed: %s' "${OPS_FAILED[*]}")"
  [ ${#OPS_FAILED[@]} -eq 0 ]
}
