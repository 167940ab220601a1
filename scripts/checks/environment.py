#!/usr/bin/env python3
"""Every environment variable a binary reads must be documented in docs/CONFIGURATION.md.

Scans the Swift sources under Services/, Shared/ and Tools/ for environment reads:

- `Environment` accessors (`Shared/Platform/Runtime`): `.get("NAME")`, `.flag(…)`, `.milliseconds(…)`, `.require(…)`;
- dictionary reads of the process environment: `environment["NAME"]`, `values["NAME"]`, `env["NAME"]`
  (assignments, which set a child's environment, are not reads);
- `getenv("NAME")`;
- local helpers that take a name and pass it to one of the accessors (`func setting(_ name: String, …)`,
  `let list = { (name: String) in … env.get(name) … }`), through every call with a literal name;
- array literals of names that are read element by element (`[…].first(where: { env.get($0) != nil })`);
- prefix reads, `withPrefix("KAFKA_CONFIG_")`, which must be documented as a prefix row (`KAFKA_CONFIG_<NAME>`).

A name counts as documented when it appears in docs/CONFIGURATION.md as a whole word. Exits 1 listing every
undocumented name with the first place that reads it; 0 when all are documented.

Usage: python3 scripts/checks/environment.py [--list]   (--list prints every name found and where)
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = ["Services", "Shared", "Tools"]
DOC = ROOT / "docs" / "CONFIGURATION.md"

NAME = r"[A-Z][A-Z0-9_]*"
ACCESSOR = r"\.(?:get|flag|milliseconds|require)"
DIRECT = [
    re.compile(ACCESSOR + r"\(\s*\"(" + NAME + r")\""),
    re.compile(r"\b(?:environment|values|env|environ)\[\s*\"(" + NAME + r")\"\s*\](?!\s*=[^=])"),
    re.compile(r"\bgetenv\(\s*\"(" + NAME + r")\""),
]
PREFIX = re.compile(r"\.withPrefix\(\s*\"(" + NAME + r")\"")
HELPER_DEFINITIONS = [
    re.compile(r"\bfunc\s+(\w+)\s*\(\s*_\s+(\w+)\s*:\s*String\b"),
    re.compile(r"\blet\s+(\w+)\s*=\s*\{\s*\(\s*(\w+)\s*:\s*String\s*\)\s*in\b"),
]
ARRAY_READ = re.compile(r"\b(\w+)\s*\.\s*(?:first|contains|filter|map|compactMap|allSatisfy)\s*\(?\s*(?:where:\s*)?\{[^}]*"
                        + ACCESSOR + r"\(\s*\$0\s*\)")
HELPER_BODY_LINES = 8


def strip_comments(text: str) -> str:
    """Drops `//` comments (outside string literals, roughly) so documentation examples do not count as reads."""
    out = []
    for line in text.split("\n"):
        in_string = False
        cut = len(line)
        i = 0
        while i < len(line) - 1:
            c = line[i]
            if c == "\\" and in_string:
                i += 2
                continue
            if c == '"':
                in_string = not in_string
            elif not in_string and line[i:i + 2] == "//":
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


def reads(path: pathlib.Path):
    """Yields (name, line number, is_prefix) for every environment read in one Swift file."""
    text = strip_comments(path.read_text(encoding="utf-8", errors="replace"))
    lines = text.split("\n")

    def line_of(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    for pattern in DIRECT:
        for m in pattern.finditer(text):
            yield m.group(1), line_of(m.start()), False
    for m in PREFIX.finditer(text):
        yield m.group(1), line_of(m.start()), True
    for definition in HELPER_DEFINITIONS:
        for m in definition.finditer(text):
            helper, parameter = m.group(1), m.group(2)
            start = line_of(m.start()) - 1
            body = "\n".join(lines[start:start + HELPER_BODY_LINES])
            if not re.search(ACCESSOR + r"\(\s*" + re.escape(parameter) + r"\b", body):
                continue
            for call in re.finditer(r"\b" + re.escape(helper) + r"\(\s*\"(" + NAME + r")\"", text):
                yield call.group(1), line_of(call.start()), False
    for m in ARRAY_READ.finditer(text):
        literal = re.search(r"\blet\s+" + re.escape(m.group(1)) + r"\s*(?::[^=]*)?=\s*\[([^\]]*)\]", text)
        if literal:
            for name in re.findall(r"\"(" + NAME + r")\"", literal.group(1)):
                yield name, line_of(literal.start()), False


def main() -> int:
    documented = DOC.read_text(encoding="utf-8")
    found = {}
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.swift")):
            if ".build" in path.parts:
                continue
            for name, line, is_prefix in reads(path):
                found.setdefault((name, is_prefix), f"{path.relative_to(ROOT)}:{line}")

    def is_documented(name: str, is_prefix: bool) -> bool:
        if is_prefix:
            return re.search(re.escape(name) + r"<", documented) is not None
        return re.search(r"(?<![A-Z0-9_])" + re.escape(name) + r"(?![A-Z0-9_])", documented) is not None

    if "--list" in sys.argv[1:]:
        for (name, is_prefix), where in sorted(found.items()):
            print(f"{name + ('<NAME>' if is_prefix else ''):40} {where}")
    missing = sorted((key, where) for key, where in found.items() if not is_documented(*key))
    if missing:
        print(f"environment: {len(missing)} variable(s) read by the code but missing from docs/CONFIGURATION.md:")
        for (name, is_prefix), where in missing:
            print(f"  {name + ('<NAME> (prefix)' if is_prefix else '')}  read at {where}")
        return 1
    print(f"environment: {len(found)} variables read, all documented in docs/CONFIGURATION.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
