"""The package's API beyond the corpus: errors and their locations, check,
format, the bytes variants, onnx's "onnxtxt" format after install(), and
onnxtxt without onnx."""

from __future__ import annotations

import array
import re
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc

import onnx
import onnx.helper
import onnx.parser
import onnx.serialization
import pytest

import onnxtxt
from corpus import without_defaults

MODEL = """\
<ir_version: 10, opset_import: ["": 21]>
g (float[N] x) => (float[N] y) {
  # a comment
  t = Relu(x)
  y = Neg(t)
}
"""


def test_every_parse_function_returns_the_onnx_proto_of_its_kind():
    cases = {
        onnxtxt.parse_model: (MODEL, onnx.ModelProto),
        onnxtxt.parse_graph: ("g (float x) => (float y) { y = Relu(x) }", onnx.GraphProto),
        onnxtxt.parse_function: (
            '<domain: "d", opset_import: ["": 21]> f (x) => (y) { y = Relu(x) }',
            onnx.FunctionProto,
        ),
        onnxtxt.parse_node: ("y = Relu(x)", onnx.NodeProto),
        onnxtxt.parse_type: ("float[N, 3]", onnx.TypeProto),
        onnxtxt.parse_tensor: ("int64[2] {1, 2}", onnx.TensorProto),
        onnxtxt.parse_attribute: ("axes: ints = [0, 1]", onnx.AttributeProto),
        onnxtxt.parse_value_info: ("float[N] x", onnx.ValueInfoProto),
    }
    for parse, (text, message) in cases.items():
        parsed = parse(text)
        assert type(parsed) is message, parse.__name__
        bytes_variant = getattr(onnxtxt, parse.__name__ + "_bytes")
        assert bytes_variant(text) == parsed.SerializeToString()
        assert onnxtxt.to_text(parsed), parse.__name__


def test_the_reference_functions_read_the_same():
    texts = {"parse_model": MODEL, "parse_graph": MODEL.split("\n", 1)[1], "parse_node": "y = Relu(x)"}
    for name, text in texts.items():
        ours = without_defaults(getattr(onnxtxt, name)(text))
        assert ours == without_defaults(getattr(onnx.parser, name)(text)), name


def test_parse_nodes_gives_a_list():
    nodes = onnxtxt.parse_nodes("{ t = Relu(x) y = Neg(t) }")
    assert [node.op_type for node in nodes] == ["Relu", "Neg"]
    assert onnxtxt.parse_nodes_bytes("{}") == []


def test_to_text_takes_serialized_models_and_honours_compat():
    model = onnxtxt.parse_model(MODEL)
    model.graph.doc_string = "kept unless compat"
    assert onnxtxt.to_text(model.SerializeToString()) == onnxtxt.to_text(model)
    assert "kept unless compat" in onnxtxt.to_text(model)
    assert "kept unless compat" not in onnxtxt.to_text(model, compat=True)
    with pytest.raises(TypeError):
        onnxtxt.to_text("not a proto")


def test_to_text_prints_every_kind_of_proto_as_onnx_reads_it_back():
    # The extension tells an onnx proto from serialized bytes and names its
    # kind: each prints as its kind, parses back to the same proto, and in
    # compat mode reads with onnx.parser as the proto it printed.
    texts = {
        "model": MODEL,
        "graph": "g (float x) => (float y) { y = Relu(x) }",
        "function": '<domain: "d", opset_import: ["": 21]> f (x) => (y) { y = Relu(x) }',
        "node": "y = Relu(x)",
        "type": "float[N, 3]",
        "tensor": "int64[2] {1, 2}",
        "attribute": "axes: ints = [0, 1]",
        "value_info": "float[N] x",
    }
    for what, text in texts.items():
        reference_parse = getattr(onnx.parser, f"parse_{what}", None)
        proto = reference_parse(text) if reference_parse else getattr(onnxtxt, f"parse_{what}")(text)
        printed = onnxtxt.to_text(proto)
        assert getattr(onnxtxt, f"parse_{what}")(printed) == proto, what
        assert onnxtxt.to_text(proto=proto, compat=False) == printed
        if reference_parse:
            compat = onnxtxt.to_text(proto, compat=True)
            assert without_defaults(reference_parse(compat)) == without_defaults(proto), what
    with pytest.raises(TypeError, match="reads and writes .*, not OperatorSetIdProto"):
        onnxtxt.to_text(onnx.OperatorSetIdProto(domain="d", version=1))
    with pytest.raises(TypeError, match="checks models, not GraphProto"):
        onnxtxt.check(onnx.parser.parse_graph(texts["graph"]))
    with pytest.raises(TypeError):
        onnxtxt.to_text(onnx.parser.parse_model(MODEL), True)  # compat is keyword-only


def test_errors_carry_every_diagnostic_with_its_line():
    text = "g (float x) => (float y) {\n  t = Relu(x$)\n  y = Relu(t%)\n}"
    with pytest.raises(onnxtxt.ParseError) as caught:
        onnxtxt.parse_graph(text)
    error = caught.value
    assert isinstance(error, ValueError)
    assert [(d.line, d.column) for d in error.diagnostics] == [(2, 13), (3, 13)]
    assert (error.line, error.column, error.code) == (2, 13, "onnxtxt::parse::character")
    first = error.diagnostics[0]
    assert first.level == "error" and first.message == "unexpected character `$`"
    assert first.help == 'a name that is not a plain identifier must be quoted: "x$"'
    drawn = str(error)
    assert "<string>:2:13" in drawn and "<string>:3:13" in drawn
    assert " 2 │   t = Relu(x$)" in drawn
    assert "\x1b" not in drawn


def test_an_unclosed_parenthesis_is_shown_where_it_opens_and_where_it_should_close():
    text = MODEL.replace("y = Neg(t)", "y = Neg(t")
    with pytest.raises(onnxtxt.ParseError) as caught:
        onnxtxt.parse_model(text)
    error = caught.value
    assert (error.code, error.line, error.column) == ("onnxtxt::parse::unclosed_delimiter", 5, 10)
    assert error.diagnostics[0].notes == ["6:1: expected `)` before this"]
    # The reference stops at the second place only.
    with pytest.raises(onnx.parser.ParseError, match="line: 6 column: 1"):
        onnx.parser.parse_model(text)


def test_a_broken_binary_model_is_located_by_byte():
    data = onnxtxt.parse_model_bytes(MODEL)
    with pytest.raises(onnxtxt.ParseError) as caught:
        onnxtxt.to_text(data[:-3])
    error = caught.value
    assert error.code == "onnxtxt::decode::truncated"
    assert error.line is None and error.diagnostics[0].start > 0
    assert str(error).startswith("error[onnxtxt::decode::truncated]: <bytes>: byte ")


def test_check_reports_findings_with_line_and_ir_path():
    text = MODEL.replace("Neg(t)", "Neg(z)")
    # In the order of the text: the unused value's line comes first.
    warning, error = onnxtxt.check(text)
    assert (error.level, error.code) == ("error", "onnxtxt::check::undefined_value")
    assert (error.line, error.column) == (5, 11)
    assert error.path == "graph.node[1].input[0]"
    assert (warning.level, warning.code, warning.line) == ("warning", "onnxtxt::check::unused_value", 4)
    from_proto = onnxtxt.check(onnx.parser.parse_model(text))
    assert [(f.code, f.path, f.line) for f in from_proto] == [
        (warning.code, warning.path, None),
        (error.code, error.path, None),
    ]
    assert onnxtxt.check(MODEL) == []
    with pytest.raises(onnxtxt.ParseError):
        onnxtxt.check("g (")


def test_format_keeps_comments():
    messy = MODEL.replace("  t = Relu(x)", "t=Relu( x )")
    formatted = onnxtxt.format(messy)
    assert "# a comment" in formatted
    assert "  t = Relu (x)" in formatted
    assert onnxtxt.format(formatted) == formatted


def lossy_model() -> onnx.ModelProto:
    """A model with what onnx's own textual format loses: a node doc string
    and a sparse initializer."""
    model = onnxtxt.parse_model(MODEL)
    model.graph.node[0].doc_string = "the rectifier"
    values = onnx.helper.make_tensor("s_values", onnx.TensorProto.FLOAT, [2], [1.5, -2.0])
    indices = onnx.helper.make_tensor("s_indices", onnx.TensorProto.INT64, [2], [0, 3])
    model.graph.sparse_initializer.append(onnx.helper.make_sparse_tensor(values, indices, [4]))
    return model


@pytest.fixture
def onnx_registry():
    """onnx's serializer of the "onnxtxt" format, put back afterwards."""
    registry = onnx.serialization.registry
    own = registry.get("onnxtxt")
    yield registry
    registry.register(own)


def test_install_makes_onnx_load_and_save_lossless(onnx_registry, tmp_path):
    model = lossy_model()
    path = tmp_path / "m.onnxtxt"
    # onnx's own format loses both...
    onnx.save(model, path)
    with pytest.warns(UserWarning):
        assert onnx.load(path) != model
    # ...onnxtxt's keeps them.
    onnxtxt.install()
    assert onnx_registry.get("onnxtxt").__module__ == "onnxtxt"
    onnx.save(model, path)
    assert "the rectifier" in path.read_text()
    assert onnx.load(path).SerializeToString() == model.SerializeToString()
    graph = onnx_registry.get("onnxtxt").deserialize_proto(onnxtxt.to_text(model.graph), onnx.GraphProto())
    assert graph == model.graph


def released_the_gil(call, seconds: float) -> bool:
    """Whether this thread gets the GIL while another runs ``call`` over and
    over for up to ``seconds``. With a switch interval longer than that, the
    other thread gives the GIL up only inside a call that releases it."""
    finished = []
    started, stop = threading.Event(), threading.Event()

    def work():
        started.set()
        deadline = time.monotonic() + seconds
        while not stop.is_set() and time.monotonic() < deadline:
            call()
        finished.append(True)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        released = not finished
        stop.set()
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    return released


def test_the_gil_is_released_while_parsing_printing_and_checking():
    body = " ".join(f"y{i} = Relu(x{i})" for i in range(2000))
    graph = f"g (float x0) => (float y0) {{ {body} }}"
    model = f'<ir_version: 10, opset_import: ["": 21]> {graph}'
    data = onnxtxt.parse_model_bytes(model)
    calls = {
        "parse": lambda: onnxtxt.parse_graph_bytes(graph),
        "parse a model": lambda: onnxtxt.parse_model_bytes(model),
        "to_text": lambda: onnxtxt.to_text(data),
        "to_text of a memoryview": lambda: onnxtxt.to_text(memoryview(data)),
        "check": lambda: onnxtxt.check(model),
        "check bytes": lambda: onnxtxt.check(data),
        "format": lambda: onnxtxt.format(graph),
    }
    for name, call in calls.items():
        assert released_the_gil(call, seconds=60), name
    # The probe tells a call that keeps the GIL (a regular expression's
    # backtracking) from one that does not.
    backtracking = re.compile(r"(a+)+b")
    assert not released_the_gil(lambda: backtracking.search("a" * 16), seconds=1)


def weights(count: int) -> str:
    """A model text whose initializer holds ``count`` floats."""
    values = ", ".join(["0.5"] * count)
    return f'<ir_version: 10, opset_import: ["": 21]> g () => (float[{count}] w) <float[{count}] w = {{{values}}}> {{}}'


def python_allocated(call) -> tuple[object, int]:
    """What ``call()`` returns, and the most memory Python's allocators held
    for it at once (``tracemalloc``: the objects the call makes, not the
    extension's own buffers)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_str_is_read_in_place_and_the_result_made_once():
    text = weights(1_000_000)
    data, peak = python_allocated(lambda: onnxtxt.parse_model_bytes(text))
    assert len(data) > 4_000_000
    assert without_defaults(onnx.ModelProto.FromString(data)) == without_defaults(onnx.parser.parse_model(text))
    # The returned bytes alone: no copy of the 5 MB of text.
    assert peak < len(data) + len(text) // 4, (peak, len(data), len(text))


def test_bytes_and_memoryviews_of_them_are_read_in_place():
    data = onnxtxt.parse_model_bytes(weights(1_000_000))
    text = onnxtxt.to_text(data)
    framed = b"head" + data + b"tail"
    for given in [memoryview(data), memoryview(framed)[4:-4], memoryview(memoryview(framed)[2:])[2:-4]]:
        printed, peak = python_allocated(lambda: onnxtxt.to_text(given))
        assert printed == text
        # The returned str alone: no copy of the 4 MB of the binary.
        assert peak < len(text) + len(data) // 4, (peak, len(text), len(data))
        assert list(map(repr, onnxtxt.check(given))) == list(map(repr, onnxtxt.check(data)))


def test_other_buffers_are_read_too():
    model = onnxtxt.parse_model(MODEL)
    data = model.SerializeToString()
    doubled = bytes(byte for byte in data for _ in range(2))
    for given in [bytearray(data), memoryview(bytearray(data)), memoryview(doubled)[::2], array.array("B", data)]:
        assert onnxtxt.to_text(given) == onnxtxt.to_text(model)
        assert onnxtxt.check(given) == []
    with pytest.raises(TypeError, match="expected an onnx proto or bytes, not int"):
        onnxtxt.to_text(5)


def chain(nodes: int) -> onnx.ModelProto:
    """A model of ``nodes`` nodes in a chain, built with onnx.helper."""
    names = ["x"] + [f"/blocks.{i}/Relu_output_0" for i in range(nodes - 1)] + ["y"]
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", [a], [b], name=f"relu_{i}") for i, (a, b) in enumerate(zip(names, names[1:]))],
        "g",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N"])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N"])],
    )
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 21)])


def test_models_on_both_sides_of_the_encoding_switch_give_the_reference_bytes():
    # The library reads a model text shorter than 256 KiB whole and encodes
    # it through a buffer of the encoding's length, a longer one in pieces,
    # its nodes encoded as they are read: both give the bytes of the model
    # the reference printed, and read it as the reference parser.
    switch = 256 * 1024
    per_node = len(onnx.printer.to_text(chain(1001))) - len(onnx.printer.to_text(chain(1000)))
    first = switch // per_node - 3
    shorter = set()
    for nodes in range(first, first + 6):
        model = chain(nodes)
        data = model.SerializeToString()
        reference_text = onnx.printer.to_text(model)
        for text in [reference_text, onnxtxt.to_text(data)]:
            shorter.add(len(text) < switch)
            assert onnxtxt.parse_model_bytes(text) == data, nodes
        reference = without_defaults(onnx.parser.parse_model(reference_text))
        assert without_defaults(onnxtxt.parse_model(reference_text)) == reference, nodes
    assert shorter == {True, False}


def run_python(code: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_without_onnx_the_bytes_variants_work_and_the_others_say_why_not():
    result = run_python(
        """
        import sys
        sys.modules["onnx"] = None  # as if it were not installed
        import onnxtxt
        assert onnxtxt.parse_node_bytes("y = Relu(x)")
        try:
            onnxtxt.parse_node("y = Relu(x)")
        except ImportError as error:
            print(error)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "needs the onnx package" in result.stdout


MALFORMED_TEXTS = [
    "",
    "<",
    "g (float x) => (float y) { y = Relu(x",
    "(" * 10_000,
    "{" * 10_000,
    "g (float[" + "1," * 20_000 + "] x) => () {}",
    "<ir_version: 99999999999999999999999999>",
    "g () => () { y = C <value = float[2] {1e999999, nan}> () }",
    "g () => () { y = C <t = int4[3] {1, 2}> () }",
    '"\\u{110000}"',
    "g (float x) => (float y) { y = Relu(x) } \x00 \udcff",
]


def test_malformed_input_raises_and_never_crashes_the_interpreter():
    # In a child, so that a crash fails this test instead of ending pytest.
    result = run_python(
        """
        import ast, sys, threading
        import onnxtxt
        texts = ast.literal_eval(sys.stdin.read())
        model = onnxtxt.parse_model_bytes("g (float x) => (float y) { y = Relu(x) }")
        blobs = [model[:n] for n in range(len(model))] + [b"\\xff" * 9, b"\\x0a\\xff\\xff\\xff\\xff\\x0f"]
        def run_all():
            for text in texts:
                for call in (onnxtxt.parse_model_bytes, onnxtxt.parse_graph_bytes, onnxtxt.format, onnxtxt.check):
                    try:
                        call(text)
                    except (onnxtxt.ParseError, UnicodeEncodeError):
                        pass
            for blob in blobs:
                for call in (onnxtxt.to_text, onnxtxt.check):
                    try:
                        call(blob)
                    except onnxtxt.ParseError:
                        pass

        run_all()
        # Again on a thread of Python's, whose stack is its own.
        failures = []
        def guarded():
            try:
                run_all()
            except BaseException as failure:
                failures.append(failure)
        thread = threading.Thread(target=guarded)
        thread.start()
        thread.join()
        if failures:
            raise failures[0]
        print("survived")
        """,
        stdin=repr(MALFORMED_TEXTS),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "survived"
