#!/usr/bin/env python3
"""Module boundaries: every target's declared dependencies in Package.swift are exactly the package modules its
Swift files import (C system-library targets included; Foundation and other toolchain modules are not package
modules and are ignored). A dependency declared but never imported links code the target does not use; a module
imported but not declared compiles only by accident, through another target's dependencies.

It also checks the layer rules (docs/ARCHITECTURE.md, "Layers"):
- a pure core (a target whose name ends in `Core`) and the shared pure modules (`PURE`) depend only on `PURE`
  and on other cores: no Kafka, Postgres, Redis, HTTP, Messaging or C library below a rule;
- no tool (a target under `Tools/`) depends on a target under `Tests/`;
- no test target depends on an executable.

Usage: scripts/checks/imports.py (from anywhere; exits 1 listing every mismatch). Reads the manifest through
`swift package dump-package`, so it needs no build."""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMPORT = re.compile(
    r"^[ \t]*(?:@\w+[ \t]+)*(?:(?:public|package|internal|fileprivate|private)[ \t]+)?import[ \t]+"
    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)[ \t]+)?(\w+)", re.MULTILINE)


def declared(target):
    names = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def imported(target):
    base = os.path.join(ROOT, target["path"])
    excluded = [os.path.join(base, e) for e in target.get("exclude", [])]
    modules = set()
    for folder, subfolders, files in os.walk(base):
        if any(folder == e or folder.startswith(e + os.sep) for e in excluded):
            subfolders[:] = []
            continue
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(folder, name), encoding="utf-8") as source:
                    modules.update(IMPORT.findall(source.read()))
    return modules


# Modules with no I/O that every layer may use: wire types, configuration and logging, finance rules, geometry.
PURE = {"Contracts", "Finance", "Geo", "Runtime"}


def is_core(target):
    return target["name"].endswith("Core")


def layer_problems(targets):
    """Breaks of the layer rules, one line each."""
    by_name = {t["name"]: t for t in targets}
    problems = []
    for target in targets:
        name, deps = target["name"], declared(target)
        if is_core(target) or name in PURE:
            for dep in sorted(deps):
                if dep not in PURE and not (dep in by_name and is_core(by_name[dep])):
                    problems.append(f"layers: {name} is pure but depends on {dep}")
        if (target.get("path") or "").startswith("Tools/"):
            for dep in sorted(deps):
                if (by_name.get(dep, {}).get("path") or "").startswith("Tests/"):
                    problems.append(f"layers: tool {name} depends on test target {dep}")
        if target["type"] == "test":
            for dep in sorted(deps):
                if by_name.get(dep, {}).get("type") == "executable":
                    problems.append(f"layers: test target {name} links executable {dep}")
    return problems


def main():
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                         capture_output=True, text=True).stdout)
    targets = manifest["targets"]
    package_modules = {t["name"] for t in targets}
    problems = []
    for target in targets:
        if target["type"] == "system":
            continue
        uses = imported(target) & package_modules
        declares = declared(target)
        for name in sorted(uses - declares):
            problems.append(f"{target['name']} imports {name} without declaring it")
        for name in sorted(declares - uses):
            problems.append(f"{target['name']} declares {name} but never imports it")
    problems += layer_problems(targets)
    for problem in problems:
        print(f"imports: {problem}", file=sys.stderr)
    checked = sum(1 for t in targets if t["type"] != "system")
    print(f"imports: {checked} targets, {len(problems)} mismatches between imports and declared dependencies"
          " or breaks of the layer rules")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
