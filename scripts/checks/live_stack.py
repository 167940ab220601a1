#!/usr/bin/env python3
"""Starts the system the way a developer does (scripts/run-local.sh, with `--replicas identify=2`) on the test
stack's broker, Postgres and Redis, with the PushDispatcher pointed at a loopback Expo fake, and checks it from
outside:

1. a second run-local on the same ports stops at once with a message naming the taken port;
2. both Identify replicas serve;
3. the outside consumer and the operator's kcat command (outside.py);
4. every metric name the Prometheus rules and the Grafana dashboard use exists in a live /metrics scrape;
5. kill -9 of a service: the supervisor reports it and the service is back and serving within 5 s (admin
   /readyz and /metrics), then answers through Kafka again once its group has rebalanced;
6. Ctrl-C (SIGINT) stops the whole stack;
7. every service exports its spans to a loopback OTLP receiver: connected traces and redaction (traces.py).

Needs KAFKA_BROKERS, POSTGRES_URL, REDIS_URL and MAPVEST_BIN_DIR (scripts/test.sh sets them). Exits 1 on failure."""

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import alerting
import otlp_receiver
import outside
import traces

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN_DIR = os.path.join(ROOT, ".stack", "test", "run-local")
SERVICES = ["gateway", "identify", "nearby", "rating", "briefs", "push", "research"]
results = []


def report(ok, text):
    results.append(ok)
    print(f"  {'ok  ' if ok else 'FAIL'} {text}", flush=True)


class FakeExpo:
    """Expo's push API on loopback: records each message; tickets are ok, except `DeviceNotRegistered` for tokens
    containing `gone`."""

    def __init__(self):
        received, lock = [], threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path == "/--/api/v2/push/send":
                    messages = json.loads(body)
                    with lock:
                        received.extend(messages)
                    answer = {"data": [FakeExpo.ticket(m) for m in messages]}
                else:
                    answer = {"data": {}}
                payload = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._received, self._lock = received, lock
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def messages(self):
        with self._lock:
            return list(self._received)

    @staticmethod
    def ticket(message):
        if "gone" in message.get("to", ""):
            return {"status": "error", "message": "not registered", "details": {"error": "DeviceNotRegistered"}}
        return {"status": "ok", "id": f"ticket-{random.getrandbits(48):x}"}


def free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def pick_ports():
    """A public port and an admin base whose +0…+5 and +10…+11 are free."""
    for _ in range(200):
        base = random.randrange(20000, 40000, 20)
        public = base + 19
        if all(free(p) for p in [public] + [base + i for i in range(6)] + [base + 10, base + 11]):
            return public, base
    raise RuntimeError("no free ports")


def get(url, timeout=2):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as res:
            return res.status, res.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except OSError:
        return None, ""


class Stack:
    def __init__(self, expo, receiver):
        self.public, self.base = pick_ports()
        self.gateway = f"http://127.0.0.1:{self.public}"
        self.bootstrap = os.environ["KAFKA_BROKERS"]
        self.admin = {"gateway": self.base, "identify.1": self.base + 1, "identify.2": self.base + 10,
                      "nearby": self.base + 2, "rating": self.base + 3, "briefs": self.base + 4, "push": self.base + 5,
                      "research": self.base + 6}
        self.env = dict(os.environ, PORT=str(self.public), ADMIN_PORT_BASE=str(self.base), MAPVEST_LOCAL_DIR=RUN_DIR,
                        EXPO_BASE_URL=expo.url, EXPO_PACE_PER_SECOND="0", AUTH_RETURN_CODE="1",
                        SHUTDOWN_TIMEOUT_MS="5000", OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
                        OTEL_BSP_SCHEDULE_DELAY="200")
        self.env.pop("LOG_FORMAT", None)  # piped: the default, JSON lines
        os.makedirs(RUN_DIR, exist_ok=True)
        self.log_path = os.path.join(RUN_DIR, "run-local.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([os.path.join(ROOT, "scripts", "run-local.sh"), "--replicas", "identify=2"],
                                        cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)

    def wait_ready(self, timeout=120):
        deadline = time.monotonic() + timeout
        pending = dict(self.admin)
        while pending and time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            for tag, port in list(pending.items()):
                if get(f"http://127.0.0.1:{port}/readyz")[0] == 200:
                    pending.pop(tag)
            time.sleep(0.2)
        return pending

    def pid(self, tag):
        with open(os.path.join(RUN_DIR, "pids", f"{tag}.pid")) as f:
            return int(f.read().strip())

    def output(self):
        self.log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        return self.process.returncode


def check_port_taken(stack):
    run = subprocess.run([os.path.join(ROOT, "scripts", "run-local.sh")], cwd=ROOT, env=stack.env,
                         capture_output=True, text=True, timeout=30)
    said = run.stderr.strip().splitlines()
    report(run.returncode != 0 and any("already in use" in line for line in said),
           f"a second run-local on the same ports stops: {said[0] if said else '(no message)'}")


def scrape(port):
    status, text = get(f"http://127.0.0.1:{port}/metrics", timeout=5)
    names = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            names.add(line.split("{", 1)[0].split(" ", 1)[0])
    return status, names


def check_metrics(stack):
    scraped = {}
    for tag, port in stack.admin.items():
        status, names = scrape(port)
        scraped[tag] = names
        if status != 200:
            report(False, f"{tag} /metrics answered {status}")
    everywhere = set().union(*scraped.values())
    used, recorded = alerting.used_metric_names()
    missing = {name: where for name, where in used.items() if name not in everywhere}
    report(not missing, f"{len(used)} metric names of the rules and dashboard are in the live scrape of "
           f"{len(scraped)} binaries ({sum(len(n) for n in scraped.values())} series names)"
           + "".join(f"; missing {n} (used by {', '.join(sorted(w))})" for n, w in sorted(missing.items())))
    lag = {tag for tag, names in scraped.items() if "kafka_consumer_lag" in names}
    report(lag >= {"identify.1", "identify.2", "nearby", "rating", "briefs", "push", "research"},
           f"kafka_consumer_lag is exported by every consuming service ({', '.join(sorted(lag))})")


def check_uncovered_routes(stack):
    """Routes no suite test drives, so the catalogue check also sees their commands and replies."""
    status, body = outside.http("POST", f"{stack.gateway}/v1/resolve-comparable", {"brand": "Starbucks"})
    report(status == 200 and (body or {}).get("brand", {}).get("isPublic") is True,
           f"POST /v1/resolve-comparable answered {status} through Kafka")


def check_restart(stack):
    tag, port = "rating", stack.admin["rating"]
    old = stack.pid(tag)
    killed = time.monotonic()
    os.kill(old, signal.SIGKILL)
    back = None
    while time.monotonic() - killed < 10:
        try:
            new = stack.pid(tag)
        except (OSError, ValueError):
            new = old
        if new != old and get(f"http://127.0.0.1:{port}/readyz", timeout=1)[0] == 200 and scrape(port)[0] == 200:
            back = time.monotonic() - killed
            break
        time.sleep(0.05)
    report(back is not None and back <= 5,
           f"kill -9 {tag}: back and serving /readyz and /metrics after "
           f"{'%.2f s' % back if back is not None else 'more than 10 s'} (limit 5 s)")
    said = [line for line in stack.output().splitlines() if line.startswith(f"[stack] {tag} was killed by signal KILL")]
    report(bool(said), f"run-local reported the restart: {said[-1] if said else '(nothing)'}")
    # Through Kafka: answered once the group has rebalanced (the dead member's partitions wait out its session).
    deadline, status, body = time.monotonic() + 30, None, None
    while time.monotonic() < deadline:
        status, body = outside.http("POST", f"{stack.gateway}/v1/search/intent", {"q": "AAPL"}, timeout=12)
        if status == 200:
            break
        time.sleep(0.5)
    report(status == 200 and (body or {}).get("intent") == "ticker",
           f"the restarted {tag} answers POST /v1/search/intent through Kafka ({status}, "
           f"{'%.1f s' % (time.monotonic() - killed)} after the kill)")


def main():
    for key in ("KAFKA_BROKERS", "POSTGRES_URL", "REDIS_URL", "MAPVEST_BIN_DIR"):
        if not os.environ.get(key):
            print(f"{key} is not set: run through scripts/test.sh")
            return 1
    expo = FakeExpo()
    receiver = otlp_receiver.Receiver()
    stack = Stack(expo, receiver)
    print(f"== run-local on :{stack.public} (admin ports from {stack.base}), log {stack.log_path}", flush=True)
    try:
        pending = stack.wait_ready()
        report(not pending, "every replica ready: " + ", ".join(f"{t} :{p}" for t, p in stack.admin.items())
               + (f"; not ready: {', '.join(pending)}" if pending else ""))
        if pending:
            print(stack.output()[-4000:])
            return 1
        check_port_taken(stack)
        report(stack.pid("identify.1") != stack.pid("identify.2"), "--replicas identify=2 runs two Identify processes")
        json_lines = [line for line in stack.output().splitlines() if line.startswith("{")]
        report(len(json_lines) > 0 and all(json.loads(line).get("msg") for line in json_lines[:50]),
               f"piped (not a terminal) the services log JSON lines ({len(json_lines)} so far)")
        print("== outside consumer and producer", flush=True)
        outside.check(stack, expo, report)
        check_uncovered_routes(stack)
        print("== traces (OTLP receiver, redaction)", flush=True)
        traces.check(stack, receiver, expo, report)
        print("== live metrics", flush=True)
        check_metrics(stack)
        print("== restart", flush=True)
        check_restart(stack)
    finally:
        code = stack.stop()
        leftovers = [t for t in os.listdir(os.path.join(RUN_DIR, "pids")) if t.endswith(".pid")
                     and os.path.exists(f"/proc/{int(open(os.path.join(RUN_DIR, 'pids', t)).read())}")] \
            if os.path.isdir(os.path.join(RUN_DIR, "pids")) else []
        report(code == 0 and not leftovers, f"Ctrl-C stopped the stack (exit {code}"
               + (f"; still running: {', '.join(leftovers)}" if leftovers else "") + ")")
    print(f"live stack: {results.count(True)} of {len(results)} checks ok")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
