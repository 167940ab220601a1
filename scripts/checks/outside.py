"""An outside consumer and producer, as an analytics team or an operator would be: a confluent-kafka consumer in its
own group reads mapvest.events.v1 and checks every CloudEvent against docs/asyncapi.yaml, and the kcat block of
docs/OPERATIONS.md ("Sending a notification by hand") publishes a push request that the PushDispatcher must deliver
to the Expo fake and report as a `mapvest.push.handed_off` event. Driven by live_stack.py."""

import json
import os
import re
import secrets
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter

from confluent_kafka import Consumer, KafkaError

from mapvest_catalogue import Catalogue, Record

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def http(method, url, body=None, token=None, timeout=15):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def operator_push_block():
    """The shell block an operator is told to run (the fenced block after the ops-check marker)."""
    with open(os.path.join(ROOT, "docs", "OPERATIONS.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- ops-check:push-request[^>]*-->\s*```sh\n(.*?)```", text, re.S)
    if not m:
        raise RuntimeError("docs/OPERATIONS.md has no ops-check:push-request block")
    return m.group(1)


class EventReader:
    """A consumer in its own group (never a mapvest.* id), from the beginning of mapvest.events.v1."""

    def __init__(self, bootstrap, catalogue):
        self.catalogue = catalogue
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"analytics.ops-check.{secrets.token_hex(4)}",
                                  "auto.offset.reset": "earliest", "enable.auto.commit": True})
        self.consumer.subscribe(["mapvest.events.v1"])
        self.types, self.ids, self.problems, self.by_key = Counter(), {}, [], {}
        # At least once (docs/asyncapi.yaml): a retried publish keeps its CloudEvent id, so a repeat of the same
        # event is a retry a consumer deduplicates; the same id on a different event is a problem.
        self.retries = 0

    def poll(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for m in self.consumer.consume(num_messages=500, timeout=0.2):
                if m.error():
                    if m.error().code() != KafkaError._PARTITION_EOF:
                        self.problems.append(f"consumer error: {m.error()}")
                    continue
                self.check(Record.from_kafka(m))

    def check(self, record):
        try:
            event = record.json()
        except ValueError as err:
            self.problems.append(f"{record.where()}: not JSON ({err})")
            return
        for field in ("specversion", "id", "source", "type", "time", "datacontenttype", "dataschema", "data"):
            if field not in (event or {}):
                self.problems.append(f"{record.where()}: CloudEvent without {field}")
                return
        seen = self.ids.setdefault(event["id"], event)
        if seen is not event:
            if seen == event:
                self.retries += 1
                return
            self.problems.append(f"{record.where()}: CloudEvent id {event['id']} names two different events")
        if not event["dataschema"].startswith(event["type"] + "/"):
            self.problems.append(f"{record.where()}: dataschema {event['dataschema']} is not {event['type']}/<version>")
        messages = [m for m in self.catalogue.messages("events") if m["name"] == event["type"]]
        if not messages:
            self.problems.append(f"{record.where()}: event type {event['type']} is not in the catalogue")
            return
        issues = self.catalogue.check(record, messages[0])
        if issues:
            self.problems.append(f"{record.where()}: {event['type']}: {'; '.join(issues)}")
        self.types[event["type"]] += 1
        self.by_key.setdefault(record.key, []).append(event)

    def close(self):
        self.consumer.close()


def sign_in(gateway):
    email = f"ops-{secrets.token_hex(4)}@example.com"
    status, issued = http("POST", f"{gateway}/v1/auth/session", {"email": email})
    if status != 200 or "devCode" not in (issued or {}):
        raise RuntimeError(f"sign-in code request answered {status} {issued}")
    status, verified = http("POST", f"{gateway}/v1/auth/session/verify", {"email": email, "code": issued["devCode"]})
    if status != 200:
        raise RuntimeError(f"sign-in verify answered {status} {verified}")
    token = verified["session"]["token"]
    status, me = http("GET", f"{gateway}/v1/auth/me", token=token)
    if status != 200:
        raise RuntimeError(f"/v1/auth/me answered {status} {me}")
    return token, me["user"]["id"]


def opted_in_device(gateway, report, expo_token):
    """A signed-in user with one device registered through the gateway and opted in to daily_brief."""
    token, user_id = sign_in(gateway)
    status, registered = http("POST", f"{gateway}/v1/push/register", {"token": expo_token}, token)
    token_id = (registered or {}).get("id")
    opted, _ = http("POST", f"{gateway}/v1/push/prefs",
                    {"tokenId": token_id, "prefs": {"notifications_enabled": True, "daily_brief": True}}, token)
    report(status == 200 and opted == 200, f"device registered ({status}) and opted in to daily_brief ({opted})")
    return user_id


def publish_as_operator(bootstrap, user_id, report):
    """Runs the documented kcat block for `user_id`; returns the request id."""
    request_id = f"ops-check-{secrets.token_hex(6)}"
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, BOOTSTRAP=bootstrap, USER_ID=user_id, REQUEST_ID=request_id)
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", operator_push_block()], cwd=work, env=env,
                             capture_output=True, text=True, timeout=30)
    report(run.returncode == 0, f"the kcat block of docs/OPERATIONS.md published {request_id} "
           f"(exit {run.returncode}{', ' + run.stderr.strip()[:300] if run.returncode else ''})")
    return request_id


def check(stack, expo, report):
    """Runs the outside consumer and the operator's kcat command against `stack`; reports each result."""
    catalogue = Catalogue(os.path.join(ROOT, "docs", "asyncapi.yaml"))
    reader = EventReader(stack.bootstrap, catalogue)
    try:
        expo_token = f"ExponentPushToken[ops{secrets.token_hex(8)}]"
        user_id = opted_in_device(stack.gateway, report, expo_token)
        request_id = publish_as_operator(stack.bootstrap, user_id, report)

        deadline = time.monotonic() + 30
        delivered = []
        while time.monotonic() < deadline and not delivered:
            delivered = [m for m in expo.messages() if m.get("to") == expo_token]
            time.sleep(0.2)
        report(len(delivered) == 1 and delivered[0].get("title") == "Mapvest maintenance"
               and delivered[0].get("body") == "Maps are back to normal.",
               f"the PushDispatcher handed the notification to the Expo fake ({len(delivered)} message(s))")

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and request_id not in reader.by_key:
            reader.poll(0.5)
        reader.poll(1)
        outcome = reader.by_key.get(request_id, [])
        report(len(outcome) == 1 and outcome[0]["type"] == "mapvest.push.handed_off"
               and outcome[0]["data"] == {"eventKind": "operator_notice", "eventKey": "daily_brief", "count": 1},
               f"the outside consumer read mapvest.push.handed_off for {request_id}: "
               f"{json.dumps(outcome[0]['data']) if outcome else 'nothing'}")

        # A device Expo no longer knows: the request fails, and says so on the events topic.
        gone_id = publish_as_operator(stack.bootstrap, opted_in_device(
            stack.gateway, report, f"ExponentPushToken[gone{secrets.token_hex(8)}]"), report)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and gone_id not in reader.by_key:
            reader.poll(0.5)
        failed = reader.by_key.get(gone_id, [])
        report(len(failed) == 1 and failed[0]["type"] == "mapvest.push.failed"
               and failed[0]["data"].get("invalidTokens") == 1,
               f"the outside consumer read mapvest.push.failed for a device Expo does not know: "
               f"{json.dumps(failed[0]['data']) if failed else 'nothing'}")
        kinds = ", ".join(f"{n} × {t}" for t, n in sorted(reader.types.items()))
        report(not reader.problems and sum(reader.types.values()) > 0,
               f"the outside consumer checked {sum(reader.types.values())} CloudEvents against the catalogue "
               f"({kinds}; {reader.retries} retried publish(es) with their id kept)"
               + ("" if not reader.problems else "; problems: " + " | ".join(reader.problems[:5])))
    finally:
        reader.close()
