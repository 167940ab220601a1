"""Traces through the live stack (driven by live_stack.py, whose services export to a loopback OTLP receiver that
decodes with the official `opentelemetry-proto` package):

1. one signed-in identify (photo + hint) and one watchlist brief each arrive as one connected trace: the gateway's
   server span named by the route template (continuing the client's `traceparent`) → producer → the service's
   consumer → its handler → Postgres/Redis client spans → the reply's producer span, every parent present;
   — then the gateway's receipt of that reply (a consumer span under it); for identify also the OCR span under the
   handler and the `find.recorded` event the outbox relayed, in the same trace;
2. answers refused in the gateway's head (401 without a session, 404 for no route) are server spans continuing the
   client's `traceparent`;
3. redaction: the bearer token, the e-mail and sign-in code, the push token and its id, the Expo tickets, titles and
   bodies the PushDispatcher handed off, and the photo pushed through the stack appear in no exported span and in no
   log line of the stack.
"""

import os
import re
import secrets
import subprocess
import tempfile
import time
import urllib.request

import otlp_receiver
import outside


def photo():
    """A small PNG with a brand name on it, drawn by ImageMagick."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "sign.png")
        subprocess.run(["convert", "-size", "360x120", "xc:white", "-font", "DejaVu-Sans-Bold", "-pointsize", "48",
                        "-fill", "black", "-annotate", "+10+80", "STARBUCKS", path], check=True, timeout=30)
        with open(path, "rb") as f:
            return f.read()


def identify(gateway, token, image, traceparent):
    boundary = "trace" + secrets.token_hex(8)
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"hint\"\r\n\r\nStarbucks\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"sign.png\"\r\n"
            f"Content-Type: image/png\r\n\r\n").encode() + image + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(f"{gateway}/v1/identify", data=body, method="POST")
    req.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("traceparent", traceparent)
    try:
        with urllib.request.urlopen(req, timeout=40) as res:
            return res.status
    except urllib.error.HTTPError as err:
        return err.code


def brief(gateway, token, traceparent):
    req = urllib.request.Request(f"{gateway}/v1/watchlist/brief", method="GET")
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("traceparent", traceparent)
    try:
        with urllib.request.urlopen(req, timeout=40) as res:
            return res.status
    except urllib.error.HTTPError as err:
        return err.code


def wait_for(receiver, trace_id, predicate, seconds=20):
    deadline = time.monotonic() + seconds
    spans = []
    while time.monotonic() < deadline:
        spans = receiver.trace(trace_id)
        if predicate(spans):
            return spans
        time.sleep(0.2)
    return spans


def chain(spans, root_name, command_topic, extra=()):
    """Problems with the trace's shape (empty list when it is one connected tree as the issue describes)."""
    by_id = {s["span_id"]: s for s in spans}
    problems = [f"span {s['name']} has a parent that was not exported" for s in spans
                if s["parent_id"] and s["parent_id"] not in by_id and s["kind"] != "server"]
    roots = [s for s in spans if s["kind"] == "server" and s["name"] == root_name]
    if len(roots) != 1:
        return problems + [f"{len(roots)} server spans named {root_name}"]
    server = roots[0]

    def child(parent, test):
        return next((s for s in spans if s["parent_id"] == parent["span_id"] and test(s)), None)

    producer = child(server, lambda s: s["kind"] == "producer" and s["name"] == f"{command_topic} publish")
    consumer = producer and child(producer, lambda s: s["kind"] == "consumer")
    handler = consumer and child(consumer, lambda s: s["kind"] == "internal")
    if not handler:
        return problems + [f"no server → producer ({command_topic}) → consumer → handler chain"]
    under = [s for s in spans if s["parent_id"] == handler["span_id"] or
             (s["parent_id"] in by_id and by_id[s["parent_id"]]["parent_id"] == handler["span_id"])]
    if not any(s["attributes"].get("db.system.name") in ("postgresql", "redis") for s in under):
        problems.append(f"no Postgres or Redis client span under the handler {handler['name']}")
    reply = child(consumer, lambda s: s["kind"] == "producer" and s["name"] == "mapvest.gateway.replies publish")
    if not reply:
        problems.append("no reply producer span under the consumer")
    elif not child(reply, lambda s: s["kind"] == "consumer" and s["name"] == "mapvest.gateway.replies receive"
                   and s["service"] == server["service"]):
        problems.append("no reply receipt (consumer span in the gateway) under the reply's producer span")
    if "ocr" in extra and not any(s["name"] == "ocr recognize" and s["kind"] == "internal" for s in under):
        problems.append(f"no OCR span under the handler {handler['name']}")
    if "event" in extra and not any(s["kind"] == "producer" and
                                    s["attributes"].get("messaging.destination.name") == "mapvest.events.v1"
                                    for s in spans):
        problems.append("no producer span of the find.recorded event (outbox) in the trace")
    return problems


def refused(gateway, receiver, method, path, status, name):
    """Problems with the server span of a request the gateway refuses in its head (empty list when right)."""
    trace, parent = secrets.token_hex(16), secrets.token_hex(8)
    req = urllib.request.Request(f"{gateway}{path}", method=method)
    req.add_header("traceparent", f"00-{trace}-{parent}-01")
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            answered = res.status
    except urllib.error.HTTPError as err:
        answered = err.code
    spans = wait_for(receiver, trace, lambda s: any(x["kind"] == "server" for x in s), seconds=10)
    server = [s for s in spans if s["kind"] == "server"]
    if answered != status:
        return [f"{method} {path} answered {answered}, not {status}"]
    if len(server) != 1:
        return [f"{method} {path}: {len(server)} server spans"]
    span = server[0]
    problems = [] if span["name"] == name else [f"{method} {path}: span named {span['name']!r}, not {name!r}"]
    if span["parent_id"] != parent:
        problems.append(f"{method} {path}: the span does not continue the client's traceparent")
    if span["attributes"].get("http.response.status_code") != status:
        problems.append(f"{method} {path}: status attribute {span['attributes'].get('http.response.status_code')}")
    return problems


def check(stack, receiver, expo, report):
    email_seen = {}
    original_http = outside.http

    def recording_http(method, url, body=None, token=None, timeout=15):
        status, answer = original_http(method, url, body, token, timeout)
        if isinstance(body, dict) and "email" in body:
            email_seen["email"] = body["email"]
        if isinstance(answer, dict) and "devCode" in answer:
            email_seen["code"] = answer["devCode"]
        return status, answer

    outside.http = recording_http
    try:
        token, user_id = outside.sign_in(stack.gateway)
    finally:
        outside.http = original_http
    push_token = f"ExponentPushToken[trace{secrets.token_hex(8)}]"
    _, registered = outside.http("POST", f"{stack.gateway}/v1/push/register", {"token": push_token}, token)
    token_id = (registered or {}).get("id", "")

    image = photo()
    identify_trace = secrets.token_hex(16)
    status = identify(stack.gateway, token, image, f"00-{identify_trace}-{secrets.token_hex(8)}-01")
    identify_extra = ("ocr", "event")
    spans = wait_for(receiver, identify_trace,
                     lambda s: not chain(s, "POST /v1/identify", "mapvest.identify.commands.v1", identify_extra))
    problems = chain(spans, "POST /v1/identify", "mapvest.identify.commands.v1", identify_extra)
    if problems:
        print("\n".join("      " + line for line in otlp_receiver.tree_lines(spans)))
    shape = "server → producer → consumer → handler → db, OCR → reply → receipt; the outbox event"
    report(status == 200 and not problems, f"identify (photo + hint, signed in) answered {status} and is one trace of "
           f"{len(spans)} spans: {'; '.join(problems) or shape}")

    brief_trace = secrets.token_hex(16)
    status = brief(stack.gateway, token, f"00-{brief_trace}-{secrets.token_hex(8)}-01")
    spans = wait_for(receiver, brief_trace, lambda s: not chain(s, "GET /v1/watchlist/brief", "mapvest.briefs.commands.v1"))
    problems = chain(spans, "GET /v1/watchlist/brief", "mapvest.briefs.commands.v1")
    if problems:
        print("\n".join("      " + line for line in otlp_receiver.tree_lines(spans)))
    report(status == 200 and not problems, f"watchlist brief answered {status} and is one trace of {len(spans)} spans: "
           f"{'; '.join(problems) or 'server → producer → consumer → handler → db → reply → receipt'}")

    problems = (refused(stack.gateway, receiver, "GET", "/v1/progress", 401, "GET /v1/progress")
                + refused(stack.gateway, receiver, "GET", "/v1/no-such-route", 404, "GET"))
    report(not problems, "answers refused in the gateway's head (401 without a session, 404 without a route) are "
           f"server spans of the client's trace: {'; '.join(problems) or 'named, linked and with their status'}")

    time.sleep(1.5)  # the exporters' schedule delay: everything traced so far has been sent
    forbidden = {"bearer token": token, "e-mail": email_seen.get("email", ""), "sign-in code": email_seen.get("code", ""),
                 "push token": push_token, "push token id": token_id}
    for n, message in enumerate(expo.messages()):
        forbidden[f"Expo message {n} token"] = message.get("to", "")
        forbidden[f"Expo message {n} title"] = message.get("title", "")
        forbidden[f"Expo message {n} body"] = message.get("body", "")
    forbidden = {k: v for k, v in forbidden.items() if v and len(v) >= 4}
    exported = b"".join(s["raw"] for s in receiver.snapshot())
    log = stack.output()
    leaks = [k for k, v in forbidden.items() if v.encode() in exported]
    leaks += [f"{k} (log)" for k, v in forbidden.items() if v in log]
    leaks += ["a photo slice"] if image[64:96] in exported else []
    leaks += ["an Expo ticket id"] if re.search(rb"ticket-[0-9a-f]{6,}", exported) else []
    leaks += ["an Expo ticket id (log)"] if re.search(r"ticket-[0-9a-f]{6,}", log) else []
    report(len(forbidden) >= 8 and not leaks,
           f"none of {len(forbidden)} secret values ({', '.join(sorted(set(k.split(' ')[0] for k in forbidden)))}…) "
           f"appears in {len(receiver.snapshot())} exported spans or {len(log.splitlines())} log lines"
           + (f"; leaked: {', '.join(leaks)}" if leaks else ""))
