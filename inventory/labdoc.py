"""The lab document: one YAML (or JSON) text describing a whole lab.

This module only reads and checks the document's shape (no database): it
refuses aliases (YAML bombs), oversize input, unknown keys and wrong types,
and names the spot of every problem as a path like ``cables[2].ends[1]``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from core.errors import BadInput
from core.validation import MAX_JSON_DEPTH, json_too_deep, text_problem

from . import validators as v

try:  # the C parser is much faster on large documents
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

Errors = list[tuple[str, str]]


class _UniqueKeys(_Loader):
    """The safe loader, refusing a key repeated in one mapping (YAML keeps the
    last one silently: ``sparks:`` twice would import only the second list)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            mark = key_node.start_mark
            if not isinstance(key_node, yaml.ScalarNode):  # "? [[...]]": deep enough, it recursed into a 500
                where = f"line {mark.line + 1}, column {mark.column + 1}"
                raise DocumentError([(where, "a key is plain text (a name), not a list or a mapping")])
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
                seen.setdefault(key, mark.line + 1)
            except TypeError:  # an unhashable key: the constructor names it below
                continue
            if first is not None:
                where = f"line {mark.line + 1}, column {mark.column + 1}"
                raise DocumentError([(where, f"the key {key!r} is repeated (first on line {first})")])
        return super().construct_mapping(node, deep=deep)


# Numbers and booleans as YAML 1.2's core schema reads them, not PyYAML's
# YAML 1.1: there a serial 0123 is the octal 83, 1_000 is 1000, a port 1:30
# is 90 (base 60) and yes/no/on/off are booleans, all silently. Here a plain
# decimal is a number, true/false a boolean, and anything else stays the text
# it was written as (a field that wants a number then says so).
_INT, _FLOAT, _BOOL = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool"
# YAML 1.1's dates too: a serial 2026-01-01 became a date, refused as "datetime.date(...)".
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_UniqueKeys.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_INT, _FLOAT, _BOOL, _TIMESTAMP)]
    for first, resolvers in _Loader.yaml_implicit_resolvers.items()
}
_UniqueKeys.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
_UniqueKeys.add_implicit_resolver(_INT, re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
_UniqueKeys.add_implicit_resolver(
    _FLOAT,
    re.compile(r"^[-+]?(?:(?:0|[1-9][0-9]*)\.[0-9]*|\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?[eE][-+]?[0-9]+)$"),
    list("-+0123456789."),
)


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DocumentError([("", f"the key {key!r} is repeated in one JSON object")])
        out[key] = value
    return out


TOP_KEYS = {"sparks", "switches", "cables"}
SPARK_KEYS = {"name", "hardware", "ssh", "serial", "vendor", "status"}
SSH_KEYS = {"host", "port", "user"}
SWITCH_KEYS = {"name", "hardware", "serial"}
CABLE_KEYS = {"type", "ends", "coded_for", "label", "length_m"}


class DocumentError(BadInput):
    """Every problem of a document, each at its place; 413 when a size limit is hit."""

    prefix = "the document was not imported: "

    def __init__(self, errors: Errors) -> None:
        super().__init__(list(errors))

    @property
    def status(self) -> int:  # type: ignore[override]
        return 413 if any("limit is" in m for _, m in self.errors) else 400


@dataclass
class SparkDoc:
    name: str
    hardware: str
    ssh_host: str
    ssh_port: int = 22
    ssh_user: str = "fleet"
    serial: str = ""
    vendor: str | None = None
    status: str | None = None


@dataclass
class SwitchDoc:
    name: str
    hardware: str
    serial: str = ""


@dataclass
class CableDoc:
    type: str
    ends: list[str]
    coded_for: str = "nvidia"
    label: str = ""
    length_m: Any = None


@dataclass
class LabDoc:
    sparks: list[SparkDoc] = field(default_factory=list)
    switches: list[SwitchDoc] = field(default_factory=list)
    cables: list[CableDoc] = field(default_factory=list)


def load_text(text: str | bytes, content_type: str, *, max_bytes: int) -> Any:
    """Parse YAML or JSON text into plain data, refusing oversize input and aliases."""
    size = len(text)
    if size > max_bytes:
        raise DocumentError([("", f"the document is {size:,} bytes; the limit is {max_bytes:,} bytes")])
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DocumentError([("", f"the document is not UTF-8 text (byte {exc.start})")]) from exc
    if "json" in content_type:
        if json_too_deep(text):
            raise DocumentError([("", f"the JSON document is nested deeper than {MAX_JSON_DEPTH} levels")])
        try:
            return json.loads(text, object_pairs_hook=_unique_pairs)
        except json.JSONDecodeError as exc:
            raise DocumentError([(f"line {exc.lineno}", f"invalid JSON: {exc.msg}")]) from exc
        except ValueError as exc:  # a number of more than 4,300 digits (Python's limit) answered 500
            raise DocumentError([("", f"invalid JSON: {exc}"[:200])]) from exc
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                line = f"line {mark.line + 1}" if mark else ""
                raise DocumentError([(line, "YAML aliases (*name) are not allowed in a lab document")])
        return yaml.load(text, Loader=_UniqueKeys)  # noqa: S506 - a safe loader, aliases refused above
    except ValueError as exc:  # a number of more than 4,300 digits, as in JSON
        raise DocumentError([("", f"invalid YAML: {exc}"[:200])]) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DocumentError([(where, f"invalid YAML: {problem}")]) from exc


def _check_keys(item: dict[str, Any], allowed: set[str], path: str, errors: Errors) -> None:
    for key in item:
        if key not in allowed:
            errors.append((f"{path}.{key}", f"unknown key; allowed: {', '.join(sorted(allowed))}"))


def _str(item: dict[str, Any], key: str, path: str, errors: Errors, *, required: bool) -> str:
    value = item.get(key)
    if value is None:
        if required:
            errors.append((f"{path}.{key}", "required"))
        return ""
    if not isinstance(value, str):
        errors.append((f"{path}.{key}", f"must be text, not {type(value).__name__}"))
        return ""
    problem = text_problem(value)
    if problem:
        errors.append((f"{path}.{key}", problem))
        return ""
    return value


def _items(data: dict[str, Any], section: str) -> list[Any]:
    """A section's entries; a missing section, or one that is not a list (reported elsewhere), is empty."""
    value = data.get(section)
    return value if isinstance(value, list) else []


def parse(data: Any) -> LabDoc:
    """Check the shape of parsed data; return a LabDoc or raise DocumentError."""
    if data is None or data == {} or data == "":
        raise DocumentError([("", "the document is empty: it must name sparks, switches or cables")])
    if not isinstance(data, dict):
        raise DocumentError([("", "the document must be a mapping with sparks, switches and cables")])
    check = _Checker()
    if not TOP_KEYS & set(data):
        # Refused whole: applied with prune, a document naming nothing would remove the whole lab.
        check.errors.append(("", "the document names none of sparks, switches or cables"))
    _check_keys(data, TOP_KEYS, "", check.errors)
    check.errors[:] = [(p.lstrip("."), m) for p, m in check.errors]
    for section in ("sparks", "switches", "cables"):
        if data.get(section) is not None and not isinstance(data[section], list):
            check.errors.append((section, "must be a list"))
    doc = LabDoc()
    for i, item in enumerate(_items(data, "sparks")):
        spark = check.spark(item, f"sparks[{i}]")
        if spark is not None:
            doc.sparks.append(spark)
    for i, item in enumerate(_items(data, "switches")):
        head = check.device(item, SWITCH_KEYS, f"switches[{i}]")
        if head is not None:
            doc.switches.append(SwitchDoc(*head))
    for i, item in enumerate(_items(data, "cables")):
        cable = check.cable(item, f"cables[{i}]")
        if cable is not None:
            doc.cables.append(cable)
    labels = [c.label for c in doc.cables if c.label]
    for i, c in enumerate(doc.cables):
        if c.label and labels.count(c.label) > 1:
            check.errors.append((f"cables[{i}].label", f"the label {c.label!r} is used by more than one cable"))
    if check.errors:
        raise DocumentError(check.errors)
    return doc


class _Checker:
    """One document's check: the problems found so far, each with its path,
    and the names and ports already taken (a second use names the first)."""

    def __init__(self) -> None:
        self.errors: Errors = []
        self.names: dict[str, str] = {}
        self.ports: dict[str, str] = {}

    def claim(self, name: str, path: str) -> None:
        if name in self.names:
            self.errors.append((path, f"the name {name!r} is also used at {self.names[name]}"))
        else:
            self.names[name] = path

    def device(self, item: Any, keys: set[str], path: str) -> tuple[str, str, str] | None:
        """Name, hardware and serial: what Sparks and switches share."""
        errors = self.errors
        if not isinstance(item, dict):
            errors.append((path, "must be a mapping"))
            return None
        _check_keys(item, keys, path, errors)
        name = _str(item, "name", path, errors, required=True)
        if name and (msg := v.check_name(name)):
            errors.append((f"{path}.name", msg))
        elif name:
            self.claim(name, f"{path}.name")
        hardware = _str(item, "hardware", path, errors, required=True)
        serial = item.get("serial") or ""
        if isinstance(serial, int) and not isinstance(serial, bool):
            serial = str(serial)
        if (msg := v.check_serial(serial)) is not None:
            errors.append((f"{path}.serial", msg))
        return name, hardware, serial if isinstance(serial, str) else ""

    def spark(self, item: Any, path: str) -> SparkDoc | None:
        head = self.device(item, SPARK_KEYS, path)
        if head is None:
            return None
        name, hardware, serial = head
        host, port, user = self.ssh(item.get("ssh"), f"{path}.ssh")
        vendor = item.get("vendor")
        if vendor is not None and (msg := v.check_label(vendor)):
            self.errors.append((f"{path}.vendor", msg))
        status = item.get("status")
        if status is not None and status not in ("active", "maintenance", "retired"):
            self.errors.append((f"{path}.status", "must be active, maintenance or retired"))
        return SparkDoc(name, hardware, host, port, user, serial, vendor, status)

    def ssh(self, ssh: Any, path: str) -> tuple[str, Any, Any]:
        """Host, port and user of a Spark's ``ssh`` mapping (defaults where it has none)."""
        if not isinstance(ssh, dict):
            self.errors.append((path, "required: a mapping with host, and optionally port and user"))
            return "", 22, "fleet"
        _check_keys(ssh, SSH_KEYS, path, self.errors)
        host = _str(ssh, "host", path, self.errors, required=True)
        if host and (msg := v.check_host(host)):
            self.errors.append((f"{path}.host", msg))
        port = ssh.get("port", 22)
        if (msg := v.check_tcp_port(port)) is not None:
            self.errors.append((f"{path}.port", msg))
        user = ssh.get("user", "fleet")
        if (msg := v.check_user(user)) is not None:
            self.errors.append((f"{path}.user", msg))
        return host, port, user

    def cable(self, item: Any, path: str) -> CableDoc | None:
        errors = self.errors
        if not isinstance(item, dict):
            errors.append((path, "must be a mapping"))
            return None
        _check_keys(item, CABLE_KEYS, path, errors)
        ctype = _str(item, "type", path, errors, required=True)
        ends = item.get("ends")
        if not isinstance(ends, list) or len(ends) < 2:
            errors.append((f"{path}.ends", "a cable needs at least two ends, e.g. [spark-01:p0, spark-02:p0]"))
            ends = ends if isinstance(ends, list) else []
        clean_ends = [end for j, end in enumerate(ends) if self.end(end, f"{path}.ends[{j}]")]
        coded = item.get("coded_for", "nvidia")
        if coded not in ("nvidia", "generic"):
            errors.append((f"{path}.coded_for", "must be nvidia or generic"))
        label = item.get("label", "") or ""
        if (msg := v.check_label(label)) is not None:
            errors.append((f"{path}.label", msg))
        return CableDoc(ctype, clean_ends, coded, label, item.get("length_m"))

    def end(self, end: Any, path: str) -> bool:
        """Whether ``end`` is a port reference (a port used twice is reported, and kept)."""
        if not isinstance(end, str) or end.count(":") != 1 or not all(end.split(":")):
            self.errors.append((path, f"{end!r} is not a port reference like spark-01:p0 or sw-1:3"))
            return False
        if end in self.ports:
            self.errors.append((path, f"port {end} is used twice: also at {self.ports[end]}"))
        else:
            self.ports[end] = path
        return True
