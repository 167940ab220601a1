"""Writes the original API's OpenAPI document with our documented exceptions applied, for the conformance run of the
money and market-data operations (scripts/lib/py-edge.sh, py_edge_original_conformance; docs/COMPATIBILITY.md,
Conformance with the original's document).

Usage: original-conformance.py ORIGINAL_YAML OUT_YAML. Each exception is a place where the original's document and
the original's code disagree, or a rule of our edge that applies to every route; the reasons are printed.
"""

import sys

import yaml

FLAT_ERROR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
BAD_REQUEST = {"description": "Bad request.", "content": {"application/json": {"schema": FLAT_ERROR}}}


def main() -> None:
    source, target = sys.argv[1:3]
    with open(source, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    reasons = []
    doc["components"]["schemas"]["ErrorResponse"] = FLAT_ERROR
    reasons.append("ErrorResponse is the flat {error: string} the original's routes send (its document's generator "
                   "describes a nested {error: {code, message}} no route answers)")
    for path, method in [("/v1/billing/checkout", "post")]:
        doc["paths"][path][method]["responses"].setdefault("400", BAD_REQUEST)
    reasons.append("POST /v1/billing/checkout may answer 400: our edge refuses a body that is not UTF-8 or holds a "
                   "NUL on every route before it is read")
    too_large = {"description": "Request body too large.", "content": {"application/json": {"schema": FLAT_ERROR}}}
    for item in doc["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                operation["responses"].setdefault("413", too_large)
    reasons.append("an operation with a body may answer 413: our edge refuses a body over the route's limit before it "
                   "is read (the original's document leaves the limit unsaid)")
    with open(target, "w", encoding="utf-8") as f:
        yaml.safe_dump(doc, f, sort_keys=False, allow_unicode=True)
    for reason in reasons:
        print(f"[conformance] exception: {reason}", file=sys.stderr)


if __name__ == "__main__":
    main()
