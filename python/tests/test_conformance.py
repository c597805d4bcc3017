"""onnxtxt against the reference (onnx 1.23.2) on every model and function
of the conformance corpus: it reads the reference printer's text as the
reference parser does, and what it prints parses back to the same bytes."""

from __future__ import annotations

import onnx
import onnx.parser
import onnx.printer
import pytest
from corpus import Case, cases, corpus_dir, without_attribute_value_lists, without_defaults

import onnxtxt

CASES = cases()


def test_corpus_is_there():
    assert CASES, f"no corpus at {corpus_dir()}: run conformance/run.sh or set ONNXTXT_CORPUS"


def parse(module, case: Case, text: str):
    return module.parse_model(text) if case.kind == "model" else module.parse_function(text)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_reference_text_parses_like_the_reference(case: Case):
    text = onnx.printer.to_text(case.load())
    reference = without_defaults(parse(onnx.parser, case, text))
    ours = without_defaults(parse(onnxtxt, case, text))
    if ours != reference:
        # Matched modulo the reference parser's known defect, or not at all.
        assert without_attribute_value_lists(ours) == reference


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_print_then_parse_gives_back_the_same_bytes(case: Case):
    original = case.load()
    text = onnxtxt.to_text(original)
    assert parse(onnxtxt, case, text).SerializeToString() == original.SerializeToString()
    if case.kind == "model":
        assert onnxtxt.parse_model_bytes(text) == original.SerializeToString()
