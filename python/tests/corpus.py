"""The conformance corpus (written by conformance/generate.py) as test
cases, and IR compared as the Rust conformance suite compares it: an
optional field that holds its default counts as unset."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import onnx

CRATE = Path(__file__).resolve().parents[2]


class Case(NamedTuple):
    name: str
    kind: str  # "model" or "function"
    path: Path  # the original binary

    def load(self) -> onnx.ModelProto | onnx.FunctionProto:
        message = onnx.ModelProto if self.kind == "model" else onnx.FunctionProto
        return message.FromString(self.path.read_bytes())


def corpus_dir() -> Path:
    path = Path(os.environ.get("ONNXTXT_CORPUS", "target/conformance"))
    return path if path.is_absolute() else CRATE / path


def cases() -> list[Case]:
    """Every case of the corpus's manifest; none when it is missing (the
    test that needs it then fails, see test_corpus_is_there)."""
    manifest = corpus_dir() / "manifest.tsv"
    if not manifest.exists():
        return []
    found = []
    for line in manifest.read_text().splitlines():
        if line.startswith("#"):
            continue
        name, kind, _status = line.split("\t")
        suffix = ".onnx" if kind == "model" else ".pb"
        found.append(Case(name, kind, corpus_dir() / (name + suffix)))
    return found


def without_defaults(message):
    """``message`` with every optional scalar field that holds its default
    cleared, at any depth (in place; returned for convenience)."""
    for field in message.DESCRIPTOR.fields:
        if field.type == field.TYPE_MESSAGE:
            if field.is_repeated:
                for value in getattr(message, field.name):
                    without_defaults(value)
            elif message.HasField(field.name):
                without_defaults(getattr(message, field.name))
        elif not field.is_repeated and message.HasField(field.name):
            if getattr(message, field.name) == field.default_value:
                message.ClearField(field.name)
    return message


def without_attribute_value_lists(message):
    """``message`` as the reference parser would have read it: that parser
    empties attribute values that are lists of tensors, graphs, type protos
    or sparse tensors (``ts: tensors = [...]``), a known defect of it."""
    for field in message.DESCRIPTOR.fields:
        if field.type != field.TYPE_MESSAGE:
            continue
        if field.is_repeated:
            for value in getattr(message, field.name):
                without_attribute_value_lists(value)
        elif message.HasField(field.name):
            without_attribute_value_lists(getattr(message, field.name))
    if message.DESCRIPTOR.name == "AttributeProto":
        for name in ("tensors", "graphs", "type_protos", "sparse_tensors"):
            message.ClearField(name)
    return message
