"""The ONNX textual syntax, parsed and printed losslessly: a drop-in for
``onnx.parser`` and ``onnx.printer``.

Switching is one import::

    import onnxtxt as parser            # was: from onnx import parser
    import onnxtxt as printer           # was: from onnx import printer

``parse_*`` return ``onnx`` protos (``onnx`` is then needed); ``parse_*_bytes``
return them serialized and need nothing else. Every error is a
:class:`ParseError` carrying all its diagnostics, each with its line and
column. The work is done by the ``onnxtxt`` Rust library, with the GIL
released.
"""

from __future__ import annotations

from typing import Any, Callable

from onnxtxt import _onnxtxt
# to_text is the extension's own: a proto or its bytes are told apart there,
# with no Python frame around the call.
from onnxtxt._onnxtxt import Diagnostic, ParseError, to_text

__all__ = [
    "Diagnostic",
    "ParseError",
    "check",
    "format",
    "install",
    "parse_attribute",
    "parse_attribute_bytes",
    "parse_function",
    "parse_function_bytes",
    "parse_graph",
    "parse_graph_bytes",
    "parse_model",
    "parse_model_bytes",
    "parse_node",
    "parse_node_bytes",
    "parse_nodes",
    "parse_nodes_bytes",
    "parse_tensor",
    "parse_tensor_bytes",
    "parse_type",
    "parse_type_bytes",
    "parse_value_info",
    "parse_value_info_bytes",
    "to_text",
]


def _onnx(wanted: str) -> Any:
    """The ``onnx`` package, or an ImportError saying what needs it."""
    try:
        import onnx
    except ImportError as error:
        raise ImportError(
            f"onnxtxt.{wanted} works with onnx protos and needs the onnx package "
            f"(pip install onnx); the parse_*_bytes functions do without it"
        ) from error
    return onnx


def _entry_points(kind: str, what: str) -> tuple[Callable[[str], Any], Callable[[str], bytes]]:
    """``parse_WHAT`` and ``parse_WHAT_bytes`` for the message ``kind``."""

    message = None  # onnx's class for ``kind``, found at the first call

    def parse_bytes(text: str) -> bytes:
        return _onnxtxt.parse(kind, text)

    def parse(text: str) -> Any:
        nonlocal message
        if message is None:
            message = getattr(_onnx(f"parse_{what}"), kind)
        return message.FromString(_onnxtxt.parse(kind, text))

    parse.__name__ = parse.__qualname__ = f"parse_{what}"
    parse.__doc__ = (
        f"Parses ``text`` as one {what} and returns an ``onnx.{kind}``.\n\n"
        f"Raises ParseError, with every diagnostic, if it is not one."
    )
    parse_bytes.__name__ = parse_bytes.__qualname__ = f"parse_{what}_bytes"
    parse_bytes.__doc__ = (
        f"Parses ``text`` as one {what} and returns the serialized {kind}.\n\n"
        f"Raises ParseError, with every diagnostic, if it is not one."
    )
    return parse, parse_bytes


parse_model, parse_model_bytes = _entry_points("ModelProto", "model")
parse_graph, parse_graph_bytes = _entry_points("GraphProto", "graph")
parse_function, parse_function_bytes = _entry_points("FunctionProto", "function")
parse_node, parse_node_bytes = _entry_points("NodeProto", "node")
parse_type, parse_type_bytes = _entry_points("TypeProto", "type")
parse_tensor, parse_tensor_bytes = _entry_points("TensorProto", "tensor")
parse_attribute, parse_attribute_bytes = _entry_points("AttributeProto", "attribute")
parse_value_info, parse_value_info_bytes = _entry_points("ValueInfoProto", "value_info")


def parse_nodes_bytes(text: str) -> list[bytes]:
    """Parses ``text`` as a node list in braces (``{ node* }``) and returns each
    serialized NodeProto.

    Raises ParseError, with every diagnostic, if it is not one."""
    return _onnxtxt.parse_nodes(text)


def parse_nodes(text: str) -> list[Any]:
    """Parses ``text`` as a node list in braces (``{ node* }``) and returns them
    as ``onnx.NodeProto``.

    Raises ParseError, with every diagnostic, if it is not one."""
    node = _onnx("parse_nodes").NodeProto
    return [node.FromString(data) for data in _onnxtxt.parse_nodes(text)]


def check(model: Any) -> list[Diagnostic]:
    """The findings of ``onnxtxt check`` about a model: its text (``str``),
    an ``onnx.ModelProto`` or a serialized one (``bytes``). Each is a
    Diagnostic with its level (``"error"`` or ``"warning"``), code,
    message, IR path and, for a text, line and column.

    A text that does not parse raises ParseError."""
    if isinstance(model, str):
        return _onnxtxt.check_text(model)
    return _onnxtxt.check_model(model)


def format(text: str) -> str:  # noqa: A001 (the name of `onnxtxt fmt`'s function)
    """``text`` in the canonical style, its comments kept, as ``onnxtxt
    fmt`` writes it. A text that does not parse raises ParseError."""
    return _onnxtxt.format(text)


class _Serializer:
    """onnx's ``"onnxtxt"`` format (``.onnxtxt``, ``.onnxtext``), served by
    onnxtxt."""

    supported_format = "onnxtxt"
    file_extensions = frozenset({".onnxtxt", ".onnxtext"})

    def serialize_proto(self, proto: Any) -> bytes:
        return to_text(proto).encode("utf-8")

    def deserialize_proto(self, serialized: bytes | str, proto: Any) -> Any:
        if isinstance(serialized, bytes):
            serialized = serialized.decode("utf-8")
        if not isinstance(serialized, str):
            raise TypeError(f"expected bytes or str, not {type(serialized).__name__}")
        proto.ParseFromString(_onnxtxt.parse(proto.DESCRIPTOR.name, serialized))
        return proto


def install() -> None:
    """Makes onnxtxt the serializer of onnx's ``"onnxtxt"`` format, so that
    ``onnx.load("m.onnxtxt")`` and ``onnx.save(model, "m.onnxtxt")`` read
    and write with onnxtxt and keep everything (doc strings, metadata,
    sparse initializers, ...). It replaces onnx's own serializer for that
    format (``onnx.printer`` and ``onnx.parser``) for the whole process."""
    _onnx("install").serialization.registry.register(_Serializer())


# A test case's data files as text, and whole test cases (onnxtxt.testcase).
parse_sequence, parse_sequence_bytes = _entry_points("SequenceProto", "sequence")
parse_map, parse_map_bytes = _entry_points("MapProto", "map")
parse_optional, parse_optional_bytes = _entry_points("OptionalProto", "optional")
from onnxtxt import testcase  # noqa: E402 (it uses the module above)
from onnxtxt.testcase import run_case, write_case  # noqa: E402

__all__ += [
    "parse_map",
    "parse_map_bytes",
    "parse_optional",
    "parse_optional_bytes",
    "parse_sequence",
    "parse_sequence_bytes",
    "run_case",
    "testcase",
    "write_case",
]
