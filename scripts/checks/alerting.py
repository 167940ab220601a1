#!/usr/bin/env python3
"""What the operators' files promise: the metric names of the Prometheus rules and the Grafana dashboard, and their
links into docs/OPERATIONS.md. Run alone it checks, without a stack, that the dashboard is well formed, that every
dashboard query uses only defined recording rules or raw metrics, and that every alert's runbook_url names a section
of docs/OPERATIONS.md. live_stack.py imports `used_metric_names` to check raw names against a live scrape."""

import glob
import json
import os
import re
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RULES = os.path.join(ROOT, "deploy", "prometheus", "mapvest.rules.yaml")
DASHBOARDS = glob.glob(os.path.join(ROOT, "deploy", "grafana", "*.json"))
OPERATIONS = os.path.join(ROOT, "docs", "OPERATIONS.md")

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset",
            "inf", "nan", "le"}


def metric_names(expr):
    """The metric (and recording-rule) names a PromQL expression reads."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)                      # strings
    e = re.sub(r"\{[^}]*\}", "", e)                                  # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)                                 # ranges and subqueries
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)  # label lists
    names = set()
    for m in re.finditer(r"(?<![\w.$])[a-zA-Z_:][a-zA-Z0-9_:]*", e):
        rest = e[m.end():].lstrip()
        if m.group(0) in KEYWORDS or rest.startswith("("):          # keywords, functions, aggregations
            continue
        names.add(m.group(0))
    return names


def rules():
    with open(RULES, encoding="utf-8") as f:
        return [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]


def dashboard_exprs():
    out = []
    for path in DASHBOARDS:
        with open(path, encoding="utf-8") as f:
            for panel in json.load(f)["panels"]:
                out += [(os.path.basename(path), panel["title"], t["expr"]) for t in panel.get("targets", [])]
    return out


def used_metric_names():
    """Raw metric names (not recording rules) that the rules and dashboards read, each with where it is used."""
    recorded = {r["record"] for r in rules() if "record" in r}
    used = {}
    for r in rules():
        for name in metric_names(r["expr"]):
            used.setdefault(name, set()).add(r.get("record") or r.get("alert"))
    for dash, title, expr in dashboard_exprs():
        for name in metric_names(expr):
            used.setdefault(name, set()).add(f"{dash}: {title}")
    return {n: w for n, w in used.items() if n not in recorded}, recorded


def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def main():
    problems = []
    with open(OPERATIONS, encoding="utf-8") as f:
        anchors = {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", f.read(), re.M)}
    alerts = [r for r in rules() if "alert" in r]
    for a in alerts:
        url = a.get("annotations", {}).get("runbook_url", "")
        if not url.startswith("docs/OPERATIONS.md#"):
            problems.append(f"alert {a['alert']}: runbook_url {url!r} does not point into docs/OPERATIONS.md")
        elif url.split("#", 1)[1] not in anchors:
            problems.append(f"alert {a['alert']}: docs/OPERATIONS.md has no section #{url.split('#', 1)[1]}")
    print(f"runbooks: {len(alerts)} alerts, each linked to an existing section of docs/OPERATIONS.md"
          if not problems else "runbooks: broken links")

    _, recorded = used_metric_names()
    panels = 0
    for path in DASHBOARDS:
        with open(path, encoding="utf-8") as f:
            dash = json.load(f)
        ids = [p["id"] for p in dash["panels"]]
        if len(ids) != len(set(ids)):
            problems.append(f"{path}: panel ids repeat")
        for p in dash["panels"]:
            if p["type"] == "row":
                continue
            panels += 1
            if not p.get("targets"):
                problems.append(f"{path}: panel {p['title']!r} has no query")
            for t in p.get("targets", []):
                for name in metric_names(t["expr"]):
                    if ":" in name and name not in recorded:
                        problems.append(f"{path}: panel {p['title']!r} reads {name}, which no recording rule defines")
    print(f"dashboards: {len(DASHBOARDS)} dashboard(s), {panels} panels with queries on defined series")
    for p in problems:
        print(f"  FAIL {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
