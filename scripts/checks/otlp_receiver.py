#!/usr/bin/env python3
"""A loopback OTLP/HTTP trace receiver: accepts `POST /v1/traces` protobuf bodies, decodes them with the official
`opentelemetry-proto` package and keeps every span. The system checks (traces.py) assert on what it holds; run as a
program it is the local trace viewer: each trace, once quiet for a moment, printed as an indented tree.

    python3 scripts/checks/otlp_receiver.py [--port 4318] [--quiet-ms 1500] [--count]

`--count` prints only `spans <total received>` whenever the total changes (benchmarks read the last line).
`mode` makes it misbehave for the exporter's tests: "ok" (200), "unavailable" (503 to everything)."""

import argparse
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (ExportTraceServiceRequest,
                                                                       ExportTraceServiceResponse)
from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

KINDS = {v: k.removeprefix("SPAN_KIND_").lower() for k, v in ProtoSpan.SpanKind.items()}


def value_of(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Receiver:
    def __init__(self, port=0, mode="ok"):
        self.spans, self.bodies, self.lock, self.mode = [], 0, threading.Lock(), mode
        self.last_seen = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path != "/v1/traces":
                    return self.answer(404, b"")
                if receiver.mode == "unavailable":
                    return self.answer(503, b"")
                if self.headers.get("Content-Type") != "application/x-protobuf":
                    return self.answer(415, b"")
                request = ExportTraceServiceRequest.FromString(body)
                receiver.add(request, dict(self.headers))
                self.answer(200, ExportTraceServiceResponse().SerializeToString())

            def answer(self, status, payload):
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.headers_seen = []
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add(self, request, headers):
        decoded = []
        for resource_spans in request.resource_spans:
            resource = {kv.key: value_of(kv.value) for kv in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for s in scope_spans.spans:
                    decoded.append({
                        "trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(),
                        "parent_id": s.parent_span_id.hex() or None, "name": s.name, "kind": KINDS.get(s.kind, "?"),
                        "service": resource.get("service.name", "?"), "start": s.start_time_unix_nano,
                        "end": s.end_time_unix_nano,
                        "attributes": {kv.key: value_of(kv.value) for kv in s.attributes},
                        "events": [{"name": e.name, "attributes": {kv.key: value_of(kv.value) for kv in e.attributes}}
                                   for e in s.events],
                        "status": {"code": s.status.code, "message": s.status.message},
                        "raw": s.SerializeToString(),
                    })
        with self.lock:
            self.bodies += 1
            self.spans.extend(decoded)
            self.headers_seen.append(headers)
            now = time.monotonic()
            for span in decoded:
                self.last_seen[span["trace_id"]] = now

    def snapshot(self):
        with self.lock:
            return list(self.spans)

    def trace(self, trace_id):
        return [s for s in self.snapshot() if s["trace_id"] == trace_id]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def tree_lines(spans):
    """The spans of one trace as indented lines: children under their parent, by start time."""
    by_parent, ids = {}, {s["span_id"] for s in spans}
    for s in sorted(spans, key=lambda s: s["start"]):
        parent = s["parent_id"] if s["parent_id"] in ids else None
        by_parent.setdefault(parent, []).append(s)
    lines = []

    def walk(parent, depth):
        for s in by_parent.get(parent, []):
            ms = (s["end"] - s["start"]) / 1e6
            status = " ERROR " + s["status"]["message"] if s["status"]["code"] == 2 else ""
            lines.append(f"{'  ' * depth}{s['name']}  [{s['service']} {s['kind']}] {ms:.1f} ms{status}")
            walk(s["span_id"], depth + 1)

    walk(None, 0)
    return lines


def view(receiver, quiet_ms):
    """Prints each trace once no span of it arrived for `quiet_ms`."""
    printed = set()
    while True:
        time.sleep(0.2)
        now = time.monotonic()
        with receiver.lock:
            ready = [t for t, seen in receiver.last_seen.items() if now - seen >= quiet_ms / 1000 and t not in printed]
        for trace_id in ready:
            printed.add(trace_id)
            print(f"trace {trace_id}", flush=True)
            for line in tree_lines(receiver.trace(trace_id)):
                print("  " + line, flush=True)


def count(receiver):
    """Prints `spans N` at start and whenever the number of spans received changed (checked every 0.2 s)."""
    last = None
    while True:
        with receiver.lock:
            total = len(receiver.spans)
        if total != last:
            print(f"spans {total}", flush=True)
            last = total
        time.sleep(0.2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=4318)
    parser.add_argument("--quiet-ms", type=int, default=1500)
    parser.add_argument("--count", action="store_true", help="print the number of spans received, not the traces")
    args = parser.parse_args()
    receiver = Receiver(args.port)
    try:
        if args.count:
            count(receiver)
        print(f"trace viewer: OTLP/HTTP on {receiver.url}/v1/traces", flush=True)
        view(receiver, args.quiet_ms)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
