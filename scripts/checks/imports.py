#!/usr/bin/env python3
"""Module boundaries: every target's declared dependencies in Package.swift are exactly the package modules its
Swift files import (C system-library targets included; Foundation and other toolchain modules are not package
modules and are ignored). A dependency declared but never imported links code the target does not use; a module
imported but not declared compiles only by accident, through another target's dependencies.

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
    for problem in problems:
        print(f"imports: {problem}", file=sys.stderr)
    checked = sum(1 for t in targets if t["type"] != "system")
    print(f"imports: {checked} targets, {len(problems)} mismatches between imports and declared dependencies")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
