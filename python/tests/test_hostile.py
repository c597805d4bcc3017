"""Hostile input that reaches Python (issue 43): errors survive pickling,
and input built to exhaust memory gets an answer in bounded memory instead
of aborting the interpreter. The memory-bound cases run in a child
interpreter under an address-space limit, so a failure is that child's
abort, not the test run's."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import onnxtxt

# The address space a child interpreter gets: what the issue measured with.
ADDRESS_SPACE_LIMIT = 4 << 30

# 1.7 KB: a constant doubled by 44 Concats (2^44 elements) that a Reshape
# reads as its shape, with a type comment so that `format` infers types.
DOUBLING_CONCATS = "\n".join(
    [
        '<ir_version: 10, opset_import: ["": 21]>',
        "g (float[N] x) => (float[] y) {",
        "  c0 = Constant <value = int64[1] {1}> () #: int64[1]",
        *(f"  c{i} = Concat <axis = 0> (c{i - 1}, c{i - 1})" for i in range(1, 45)),
        "  y = Reshape (x, c44)",
        "}",
        "",
    ]
)

DIAGNOSTIC_FIELDS = (
    "level",
    "code",
    "message",
    "line",
    "column",
    "end_line",
    "end_column",
    "start",
    "end",
    "path",
    "help",
    "notes",
)


def fields(diagnostic: onnxtxt.Diagnostic) -> tuple:
    return tuple(getattr(diagnostic, name) for name in DIAGNOSTIC_FIELDS)


def test_a_parse_error_pickles_with_its_fields():
    try:
        onnxtxt.parse_model('<ir_version: 10>\ng (float x) => (float y) {\n  y = Relu(x\n}\n')
    except onnxtxt.ParseError as raised:
        error = raised
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is onnxtxt.ParseError
    assert str(restored) == str(error)
    assert (restored.line, restored.column, restored.code) == (error.line, error.column, error.code)
    assert [fields(d) for d in restored.diagnostics] == [fields(d) for d in error.diagnostics]
    assert error.diagnostics and error.diagnostics[0].line == 3


def test_check_findings_pickle():
    findings = onnxtxt.check("<ir_version: 10, opset_import: [\"\": 21]>\ng (float x) => (float y) {\n  y = Relu(z)\n}\n")
    assert findings
    restored = pickle.loads(pickle.dumps(findings))
    assert [fields(d) for d in restored] == [fields(d) for d in findings]


def run_limited(code: str) -> subprocess.CompletedProcess:
    """Runs `code` in a child interpreter limited to ADDRESS_SPACE_LIMIT."""
    limited = f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE_LIMIT}, {ADDRESS_SPACE_LIMIT}))
        import onnxtxt
    """
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(limited) + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ten_million_open_braces_are_a_parse_error_in_bounded_memory():
    child = run_limited(
        """
        try:
            onnxtxt.parse_model("{" * 10_000_000)
        except onnxtxt.ParseError as error:
            print("ParseError", len(error.diagnostics))
        """
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.startswith("ParseError")


def test_formatting_doubling_concats_takes_bounded_memory():
    child = run_limited(
        f"""
        text = onnxtxt.format({DOUBLING_CONCATS!r})
        print(text.count("Concat"))
        """
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.split() == ["44"]
