"""The Kafka catalogue (docs/asyncapi.yaml) as the checks use it: which message a record is, and whether its key,
headers and value match that message's schemas. Shared by catalogue.py and outside.py."""

import copy
import datetime
import json
import re
import warnings

import yaml
from jsonschema import Draft7Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

BASE_URI = "urn:mapvest:asyncapi"

FORMATS = FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _is_datetime(value):
    if not isinstance(value, str):
        return True
    if not re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$", value):
        raise ValueError("not RFC 3339")
    datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


class Record:
    """One Kafka record, decoded enough to check it."""

    def __init__(self, topic, partition, offset, key, value, headers):
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key.decode("utf-8") if key is not None else None
        self.value = value or b""
        self.headers = {}
        for name, raw in headers or []:
            self.headers[name] = raw.decode("utf-8") if raw is not None else ""

    @classmethod
    def from_kafka(cls, message):
        return cls(message.topic(), message.partition(), message.offset(), message.key(), message.value(),
                   message.headers())

    def where(self):
        return f"{self.topic}[{self.partition}]@{self.offset}"

    def json(self):
        """The value as JSON (None for an empty value); raises ValueError for anything else."""
        if not self.value:
            return None
        return json.loads(self.value.decode("utf-8"))


class Catalogue:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.doc = yaml.safe_load(f)
        self.registry = Registry().with_resource(BASE_URI, Resource(contents=self.doc, specification=DRAFT7))
        self._validators = {}

    # -- document structure --------------------------------------------------------------------------------------

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise KeyError(f"only local references are used: {ref}")
        node = self.doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[part]
        return node

    def deref(self, node):
        while isinstance(node, dict) and "$ref" in node:
            node = self.resolve(node["$ref"])
        return node

    def all_refs(self, node=..., path="#"):
        """Every `$ref` in the document with where it is."""
        node = self.doc if node is ... else node
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "$ref" and isinstance(v, str):
                    yield path, v
                else:
                    yield from self.all_refs(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from self.all_refs(v, f"{path}/{i}")

    def null_keys(self, node=..., path="#"):
        """Keys without a value (outside the `messages` maps, which may be empty)."""
        node = self.doc if node is ... else node
        if isinstance(node, dict):
            for k, v in node.items():
                if v is None and k != "messages":
                    yield path, k
                yield from self.null_keys(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from self.null_keys(v, f"{path}/{i}")

    def message(self, channel_id, message_id):
        """The message with its traits applied (the message's own fields win)."""
        raw = self.deref(self.doc["channels"][channel_id]["messages"][message_id])
        merged = {}
        for trait in raw.get("traits", []):
            merged.update(copy.deepcopy(self.deref(trait)))
        merged.update({k: v for k, v in raw.items() if k != "traits"})
        merged["_pointer"] = f"#/channels/{channel_id}/messages/{message_id}"
        return merged

    def messages(self, channel_id):
        return [self.message(channel_id, m) for m in (self.doc["channels"][channel_id].get("messages") or {})]

    def channel_for(self, topic):
        for channel_id, channel in self.doc["channels"].items():
            pattern = "^" + re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(channel["address"])) + "$"
            if re.match(pattern, topic):
                return channel_id
        return None

    def names(self):
        """Every message name (command, event type, reply) in the document."""
        return {self.message(c, m).get("name") for c in self.doc["channels"]
                for m in (self.doc["channels"][c].get("messages") or {})}

    def reply_messages(self, command_pointer):
        """The reply messages of the operations that receive the command at `command_pointer`."""
        out = []
        for op in self.doc.get("operations", {}).values():
            if any(m.get("$ref") == command_pointer for m in op.get("messages", [])) and "reply" in op:
                reply = self.deref(op["reply"])
                for ref in reply.get("messages", []):
                    channel_id, message_id = ref["$ref"].split("/")[2], ref["$ref"].split("/")[4]
                    out.append(self.message(channel_id, message_id))
        return out

    # -- validation ----------------------------------------------------------------------------------------------

    def validator(self, pointer):
        if pointer not in self._validators:
            self._validators[pointer] = Draft7Validator(
                {"$ref": BASE_URI + pointer}, registry=self.registry, format_checker=FORMATS)
        return self._validators[pointer]

    def errors(self, pointer, instance):
        """Validation errors of `instance` against the schema at `pointer` ('' when valid)."""
        errs = sorted(self.validator(pointer).iter_errors(instance), key=lambda e: list(e.absolute_path))
        return "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}" for e in errs[:5])

    def check(self, record, message):
        """Problems of `record` as `message` (empty list when it matches)."""
        problems = []
        ptr = message["_pointer"]
        if "headers" in message:
            hp = self._schema_pointer(message, "headers")
            e = self.errors(hp, record.headers)
            if e:
                problems.append(f"headers: {e}")
        key_schema = message.get("bindings", {}).get("kafka", {}).get("key")
        if key_schema is not None:
            e = self.errors(self._schema_pointer(message, "bindings/kafka/key"), record.key)
            if e:
                problems.append(f"key: {e}")
        payload = message.get("payload")
        if payload is not None and set(payload) - {"description"}:
            try:
                value = record.json()
            except ValueError as err:
                return problems + [f"value is not JSON: {err}"]
            e = self.errors(ptr + "/payload", value)
            if e:
                problems.append(f"value: {e}")
        return problems

    def _schema_pointer(self, message, field):
        """Where `field` of the message is defined: on the message, or on the trait that supplied it."""
        raw = self.deref(self.resolve(message["_pointer"]))
        first = field.split("/")[0]
        if first in raw:
            return message["_pointer"] + "/" + field
        for trait in reversed(raw.get("traits", [])):
            if first in self.deref(trait):
                return trait["$ref"] + "/" + field
        raise KeyError(field)


def quiet_asyncapi_model():
    """The asyncapi3 package's document model (its import warns about field names; those are not ours)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from asyncapi3.models.asyncapi import AsyncAPI3
    return AsyncAPI3
