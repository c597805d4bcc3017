"""The `str` of a long print: from 32 MiB of text on, `to_text` writes an
ASCII text straight into its `str` (the extension's `text_str`), and any
other text is made by CPython from its UTF-8. Either way the `str` must be
the text the command prints, and the very `str` CPython makes from it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import onnx
import onnx.helper
import pytest

import onnxtxt

# The extension's IN_PLACE_STR: texts from this length on are written in place.
IN_PLACE_STR = 32 << 20
# The extension's STR_CHUNK: a text is checked and copied a chunk at a time.
STR_CHUNK = 64 * 1024


def command() -> Path:
    """The `onnxtxt` command: $ONNXTXT, or the debug build `cargo test` made."""
    path = Path(os.environ.get("ONNXTXT", Path(__file__).parents[2] / "target" / "debug" / "onnxtxt"))
    if not path.is_file():
        message = f"{path} is missing: build it with `cargo build`, or set ONNXTXT"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def model(doc_string: str) -> onnx.ModelProto:
    graph = onnx.helper.make_graph([], "g", [], [])
    return onnx.helper.make_model(graph, doc_string=doc_string, opset_imports=[onnx.helper.make_opsetid("", 21)])


def doc_string_of_text_length(length: int, middle: str = "") -> str:
    """A doc string whose model prints to `length` characters, `middle` in its middle."""
    around = len(onnxtxt.to_text(model(middle))) - len(middle)
    half = (length - around - len(middle)) // 2
    return "x" * half + middle + "x" * (length - around - len(middle) - half)


# Lengths in characters: below, at and above the threshold, a partial last
# chunk, and a long text over many huge pages.
ASCII_LENGTHS = [IN_PLACE_STR - 1, IN_PLACE_STR, IN_PLACE_STR + 1, IN_PLACE_STR + STR_CHUNK + 1, 3 * IN_PLACE_STR // 2]


@pytest.mark.parametrize("length", ASCII_LENGTHS)
def test_a_long_ascii_print_is_the_str_cpython_makes_of_the_command_text(tmp_path, length):
    check_against_the_command(tmp_path, model(doc_string_of_text_length(length)), length)


# Where the first byte above 127 is: in the first chunk, at the start of the
# second, in the middle, in the last chunk.
@pytest.mark.parametrize("where", ["first chunk", "second chunk", "middle", "last chunk"])
def test_a_long_print_that_is_not_ascii_is_the_str_cpython_makes_of_the_command_text(tmp_path, where):
    length = IN_PLACE_STR + STR_CHUNK + 1
    doc_string = doc_string_of_text_length(length)
    at = {"first chunk": 0, "second chunk": STR_CHUNK, "middle": len(doc_string) // 2, "last chunk": len(doc_string) - 3}
    doc_string = doc_string[: at[where]] + "é≠🙂" + doc_string[at[where] + 3 :]
    check_against_the_command(tmp_path, model(doc_string), length)


def check_against_the_command(tmp_path: Path, proto: onnx.ModelProto, length: int) -> None:
    path = tmp_path / "model.onnx"
    data = proto.SerializeToString()
    path.write_bytes(data)
    printed = subprocess.run([command(), "print", path], capture_output=True, check=True, timeout=300).stdout
    # CPython's own str of the command's text (what the extension made
    # before it wrote long texts in place, PyUnicode_FromStringAndSize).
    expected = printed.decode("utf-8")
    for given in [data, proto]:
        text = onnxtxt.to_text(given)
        assert len(text) == length
        assert text == expected
        assert text.encode("utf-8") == printed
        # The same kind of str: compact ASCII (1 byte a character) or not.
        assert text.isascii() == expected.isascii()
        assert sys.getsizeof(text) == sys.getsizeof(expected)
        assert hash(text) == hash(expected)
    assert onnxtxt.parse_model_bytes(text) == data
