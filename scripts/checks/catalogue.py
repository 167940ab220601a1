#!/usr/bin/env python3
"""Checks docs/asyncapi.yaml and every message on the broker against it.

1. The document: a valid AsyncAPI 3 document (the asyncapi3 model), every `$ref` resolves, every schema is a valid
   JSON Schema, every operation's messages belong to its channel.
2. The code: every command name, event type and topic the Swift contracts define is in the catalogue.
3. The traffic: every record on every `mapvest.*` topic of the broker in KAFKA_BROKERS (after the test suite ran)
   matches its message's key, header and value schemas. Records a service dead-lettered (the tests send broken
   commands on purpose) are skipped, and so are topics no channel matches and replies to commands sent on them
   (the tests' own topics); the dead letters themselves are checked.
4. Closed shapes: for every message kind seen, the first record with one unexpected field added must fail. Dead
   letters and messages marked `x-passthrough: true` (a body another system owns, passed on unchanged) are exempt.

Usage: catalogue.py [--no-traffic]; exits 1 on any problem."""

import copy
import glob
import json
import os
import re
import sys
from collections import Counter

from confluent_kafka import Consumer, KafkaError, TopicPartition
from jsonschema import Draft7Validator

from mapvest_catalogue import Catalogue, Record, quiet_asyncapi_model

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
problems = []


def problem(text):
    problems.append(text)
    print(f"  FAIL {text}")


def check_document(cat):
    try:
        quiet_asyncapi_model().model_validate(cat.doc)
    except Exception as err:  # the model's error names every wrong field
        problem(f"not a valid AsyncAPI 3 document: {str(err)[:2000]}")
    refs = list(cat.all_refs())
    for where, ref in refs:
        try:
            cat.resolve(ref)
        except (KeyError, IndexError, TypeError):
            problem(f"{where}: $ref {ref} does not resolve")
    for where, key in cat.null_keys():
        problem(f"{where}: key {key!r} has no value (an unquoted comma in a YAML flow mapping?)")
    schemas = dict(cat.doc.get("components", {}).get("schemas", {}))
    for channel_id, channel in cat.doc["channels"].items():
        names = set()
        for message_id in channel.get("messages") or {}:
            m = cat.message(channel_id, message_id)
            if m.get("name") in names:
                problem(f"channel {channel_id}: message name {m.get('name')} twice")
            names.add(m.get("name"))
            for field in ("payload", "headers"):
                if field in m:
                    schemas[f"{channel_id}.{message_id}.{field}"] = m[field]
    for name, schema in schemas.items():
        try:
            Draft7Validator.check_schema(schema)
        except Exception as err:
            problem(f"schema {name} is not valid JSON Schema: {str(err).splitlines()[0]}")
    for op_id, op in cat.doc.get("operations", {}).items():
        channel_ref = op["channel"]["$ref"]
        for m in op.get("messages", []):
            if not m["$ref"].startswith(channel_ref + "/messages/"):
                problem(f"operation {op_id}: message {m['$ref']} is not in its channel {channel_ref}")
    print(f"document: AsyncAPI {cat.doc['asyncapi']}, {len(cat.doc['channels'])} channels, "
          f"{len(cat.doc.get('operations', {}))} operations, {len(refs)} references, {len(schemas)} schemas checked")


def check_code(cat):
    names = cat.names()
    sources = glob.glob(os.path.join(ROOT, "Shared", "Platform", "Contracts", "*.swift"))
    text = "\n".join(open(p, encoding="utf-8").read() for p in sources)
    # Command names: `static let name = "…v1"`, or a namespace of them (`static let create = "rivalries.create.v1"`).
    commands = {n for n in re.findall(r'static let [a-z][A-Za-z]* = "([a-z0-9.-]+\.v[0-9]+)"', text)
                if not n.startswith("mapvest.")}
    events = set(re.findall(r'static let type = "(mapvest\.[a-z_.]+)"', text))
    for name in sorted(commands | events):
        if name not in names:
            problem(f"{name} is defined in Shared/Platform/Contracts but not in docs/asyncapi.yaml")
    topics = set(re.findall(r'"(mapvest\.[a-z.]+\.v1)"', text))
    services = re.search(r"case ([a-z, ]+)\n", open(os.path.join(ROOT, "Shared/Platform/Contracts/Topics.swift")).read())
    topics |= {f"mapvest.{s.strip()}.commands.v1" for s in services.group(1).split(",")} if services else set()
    addresses = {c["address"] for c in cat.doc["channels"].values()}
    for topic in sorted(topics):
        if topic not in addresses:
            problem(f"topic {topic} is used in Shared/Platform/Contracts but has no channel in docs/asyncapi.yaml")
    print(f"code: {len(commands)} commands, {len(events)} event types, {len(topics)} topics in Shared/Platform/Contracts")


def read_all(bootstrap):
    """Every record of every mapvest.* topic, from the beginning to the current end."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "ops-catalogue-check", "enable.auto.commit": False,
                         "enable.partition.eof": True, "auto.offset.reset": "earliest"})
    metadata = consumer.list_topics(timeout=10)
    parts = [TopicPartition(t, p, 0) for t, tm in metadata.topics.items() if t.startswith("mapvest.")
             for p in tm.partitions]
    ends = {}
    for tp in parts:
        low, high = consumer.get_watermark_offsets(tp, timeout=10)
        if high > low:
            ends[(tp.topic, tp.partition)] = high
    consumer.assign([TopicPartition(t, p, 0) for (t, p) in ends])
    records, pending = [], dict(ends)
    idle = 0
    while pending and idle < 50:
        batch = consumer.consume(num_messages=1000, timeout=0.2)
        idle = 0 if batch else idle + 1
        for m in batch:
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    pending.pop((m.topic(), m.partition()), None)
                continue
            records.append(Record.from_kafka(m))
            if m.offset() + 1 >= pending.get((m.topic(), m.partition()), 0):
                pending.pop((m.topic(), m.partition()), None)
    consumer.close()
    if pending:
        problem(f"could not read to the end of {sorted(pending)}")
    return records


def classify(cat, record, commands_by_correlation):
    """The catalogue messages `record` may be (empty: not in the catalogue; None: outside it, such as a test's
    own `mapvest.test.…` topic or a reply to a command sent on one) and what the record is."""
    channel_id = cat.channel_for(record.topic)
    if channel_id is None:
        return None, "on a topic without a channel"
    messages = cat.messages(channel_id)
    if channel_id == "events":
        try:
            kind = (record.json() or {}).get("type")
        except (ValueError, AttributeError):
            kind = None
        return [m for m in messages if m.get("name") == kind], f"event {kind}"
    if channel_id == "gatewayReplies":
        command = commands_by_correlation.get(record.headers.get("mv-correlation-id"))
        if command is None:
            return None, "reply to a command on a topic outside the catalogue"
        return cat.reply_messages(command["_pointer"]), f"reply to {command.get('name')}"
    if len(messages) == 1 and channel_id in ("pushRequests", "deadLetters"):
        return messages, messages[0]["name"]
    name = record.headers.get("mv-command")
    return [m for m in messages if m.get("name") == name], f"command {name}"


def check_traffic(cat, records):
    dead = {(r.headers.get("mv-dlq-topic"), r.headers.get("mv-dlq-partition"), r.headers.get("mv-dlq-offset"))
            for r in records if r.topic == "mapvest.dlq.v1"}
    commands_by_correlation = {}
    for r in records:
        channel_id, corr = cat.channel_for(r.topic), r.headers.get("mv-correlation-id")
        if channel_id and corr and "mv-command" in r.headers:
            for m in cat.messages(channel_id):
                if m.get("name") == r.headers["mv-command"]:
                    commands_by_correlation[corr] = m
    seen, skipped, first, outside = Counter(), 0, {}, Counter()
    for r in records:
        if (r.topic, str(r.partition), str(r.offset)) in dead:
            skipped += 1
            continue
        candidates, what = classify(cat, r, commands_by_correlation)
        if candidates is None:  # test topics (mapvest.test.…) and replies to their commands
            outside[what] += 1
            continue
        if not candidates:
            problem(f"{r.where()}: {what} is not in the catalogue (headers {sorted(r.headers)})")
            continue
        results = [(m, cat.check(r, m)) for m in candidates]
        matching = [m for m, p in results if not p]
        if not matching:
            detail = " | ".join(f"{m['name']}: {'; '.join(p)}" for m, p in results[:3])
            problem(f"{r.where()}: {what} does not match: {detail}")
            continue
        seen[matching[0]["name"]] += 1
        first.setdefault(matching[0]["name"], (r, matching[0]))
    print(f"traffic: {len(records)} records, {sum(seen.values())} valid, {skipped} dead-lettered originals skipped, "
          f"{sum(outside.values())} outside the catalogue skipped ({'; '.join(f'{n} × {w}' for w, n in outside.items())})")
    for name, n in sorted(seen.items()):
        print(f"  ok   {n:6d} × {name}")
    unseen = sorted(n for n in cat.names() if n not in seen)
    if unseen:
        print(f"  (not produced by this run: {', '.join(unseen)})")
    return first


def check_closed(cat, first):
    """An added field must fail: the catalogue's shapes are closed where we own them."""
    closed, exempt = 0, 0
    for name, (record, message) in sorted(first.items()):
        if name == "dead-letter" or message.get("x-passthrough") is True:
            exempt += 1
            continue
        try:
            value = record.json()
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        mutated = copy.deepcopy(value)
        target = mutated["data"] if isinstance(mutated.get("data"), dict) and "specversion" in mutated else mutated
        target["opsUnexpectedField"] = 1
        probe = Record(record.topic, record.partition, record.offset, record.key.encode() if record.key else None,
                       json.dumps(mutated).encode(), [(k, v.encode()) for k, v in record.headers.items()])
        if cat.check(probe, message):
            closed += 1
        else:
            problem(f"{name}: a record with an unexpected field still matches (shape not closed)")
    print(f"closed shapes: {closed}/{len(first) - exempt} reject an unexpected field "
          f"({exempt} exempt: dead letters, passed-through bodies)")


def main():
    cat = Catalogue(os.path.join(ROOT, "docs", "asyncapi.yaml"))
    print("== event catalogue (docs/asyncapi.yaml)")
    check_document(cat)
    check_code(cat)
    if "--no-traffic" not in sys.argv:
        bootstrap = os.environ.get("KAFKA_BROKERS")
        if not bootstrap:
            problem("KAFKA_BROKERS is not set: run through scripts/test.sh")
        else:
            records = read_all(bootstrap)
            check_closed(cat, check_traffic(cat, records))
    print(f"catalogue: {'FAILED, ' + str(len(problems)) + ' problem(s)' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
