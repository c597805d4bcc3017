"""Checks `onnxtxt inline` against onnx's inliner.

Usage: inline_reference.py ONNXTXT [--schema-bodies] [--schema-functions]
                           [--verbose] [MODEL...]

For each MODEL (text or binary, read by `onnxtxt parse` when text) and, with
--schema-bodies, for each plain function body of onnx's ai.onnx operators
wrapped as the local function of a model calling it once, runs `ONNXTXT
inline` and requires of its output: no call of a local function left and
no function kept, onnx.checker.check_model(full_check=True) accepts it, and
onnx.reference.ReferenceEvaluator gives the same outputs on random inputs
as every reference that runs the model gives: ReferenceEvaluator on
onnx.inliner.inline_local_functions(model) and on the model, onnxruntime
on the model (--verbose says which cannot, and why). onnx's inliner is
left out where a call omits an attribute that has a default: it leaves
the attribute out instead of using the default. A schema body
that no reference runs on the random inputs (wrong shapes for the
operator) is counted as skipped. With --schema-functions, each of those
operators, at each opset where its plain body defines it, as the one node
of a model, through `ONNXTXT inline --schema-functions`, which must leave
no node of it: the same checks, against the ReferenceEvaluator and
onnxruntime on the model; and the same for nodes of operators whose body
onnx builds for each node (CONTEXT_NODES: Gelu, LayerNormalization...).
A case no reference runs is counted as skipped, not as passed.
Prints one line per failure and a summary `inline(reference): N passed, M
failed, K skipped`; exits non-zero if any failed. tests/it/inline_cli.rs
runs it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnx.checker
import onnx.helper
import onnx.inliner
import onnx.parser
import onnx.reference

# Whether to say why a case is skipped (--verbose).
VERBOSE = "--verbose" in sys.argv

# Every symbolic or unknown dimension of a graph input gets this size.
DIMENSION = 3


def random_input(value: onnx.ValueInfoProto, rng: np.random.Generator) -> np.ndarray:
    """A random tensor of `value`'s element type and shape."""
    tensor = value.type.tensor_type
    shape = [d.dim_value if d.HasField("dim_value") else DIMENSION for d in tensor.shape.dim]
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 3, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    return onnx.reference.ReferenceEvaluator(model).run(None, feeds)


def nodes_of(graph: onnx.GraphProto) -> list[onnx.NodeProto]:
    """The nodes of `graph` and its subgraphs."""
    nodes = []
    for node in graph.node:
        nodes.append(node)
        for attribute in node.attribute:
            for sub in [attribute.g] if attribute.HasField("g") else attribute.graphs:
                nodes += nodes_of(sub)
    return nodes


def local_calls(graph: onnx.GraphProto, functions: set[tuple[str, str]]) -> int:
    """How many nodes of `graph` and its subgraphs call one of `functions`."""
    return sum((node.domain, node.op_type) in functions for node in nodes_of(graph))


def onnxruntime_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    import onnxruntime

    onnxruntime.set_default_logger_severity(4)
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def omits_a_default(model: onnx.ModelProto) -> bool:
    """Whether a call (in the graph or a function body) leaves out an
    attribute its function gives a default: onnx 1.23.2's inliner then
    leaves the attribute out instead of using the default."""
    defaults = {(f.domain, f.name): {a.name for a in f.attribute_proto} for f in model.functions}
    nodes = list(model.graph.node) + [n for f in model.functions for n in f.node]
    return any(
        defaults.get((n.domain, n.op_type), set()) - {a.name for a in n.attribute} for n in nodes
    )


def references(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, list]:
    """The outputs of every reference that runs `model` on `feeds`: the
    ReferenceEvaluator on onnx's inlining and on the model itself, and
    onnxruntime on the model itself; not onnx's inliner where a call omits
    an attribute with a default (see `omits_a_default`)."""
    engines = {
        "onnx.inliner": lambda: run(onnx.inliner.inline_local_functions(model), feeds),
        "ReferenceEvaluator": lambda: run(model, feeds),
        "onnxruntime": lambda: onnxruntime_run(model, feeds),
    }
    if omits_a_default(model):
        del engines["onnx.inliner"]
    outputs = {}
    for label, engine in engines.items():
        try:
            outputs[label] = engine()
        except Exception as err:  # noqa: BLE001 - a reference that cannot run the model
            if VERBOSE:
                print(f"  {label} cannot run it: {str(err).strip()[:200]}")
    return outputs


def compare(
    onnxtxt: str, name: str, model: onnx.ModelProto, work: Path, schema_functions: bool = False
) -> str:
    """'passed', 'skipped', or why ours differs from the reference. With
    `schema_functions`, `inline --schema-functions` must leave none of the
    graph's operators that onnx defines by a function body."""
    rng = np.random.default_rng(0)
    feeds = {i.name: random_input(i, rng) for i in model.graph.input}
    if VERBOSE:
        print(name)
    expected = references(model, feeds)
    if not expected:
        return "skipped"
    if not all(o.type.HasField("tensor_type") for o in model.graph.output):
        # The element types and ranks of the reference's outputs.
        first = next(iter(expected.values()))
        typed = [
            onnx.helper.make_tensor_value_info(
                o.name,
                onnx.helper.np_dtype_to_tensor_dtype(value.dtype),
                [f"{o.name}_{i}" for i in range(value.ndim)],
            )
            for o, value in zip(model.graph.output, first, strict=True)
        ]
        del model.graph.output[:]
        model.graph.output.extend(typed)
    source = work / "in.onnx"
    source.write_bytes(model.SerializeToString())
    inlined_path = work / "out.onnx"
    done = subprocess.run(
        [onnxtxt, "inline", str(source), "-o", str(inlined_path)]
        + ["--schema-functions"] * schema_functions,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return f"onnxtxt inline failed: {done.stderr.strip()}"
    inlined = onnx.load(str(inlined_path))
    functions = {(f.domain, f.name) for f in model.functions}
    if schema_functions:
        functions |= {(n.domain, n.op_type) for n in nodes_of(model.graph) if has_body(n, model)}
    if inlined.functions or local_calls(inlined.graph, functions):
        return "functions or calls of them are left"
    try:
        onnx.checker.check_model(inlined, full_check=True)
    except Exception as err:  # noqa: BLE001 - checker and inference errors
        return f"onnx.checker rejects the output: {str(err).strip()}"
    try:
        actual = run(inlined, feeds)
    except Exception as err:  # noqa: BLE001 - ours must run where the references do
        return f"the ReferenceEvaluator cannot run the output: {str(err).strip()[:200]}"
    for label, outputs in expected.items():
        for i, (want, got) in enumerate(zip(outputs, actual, strict=True)):
            # A body computes by other formulas than the engines' kernels
            # (LayerNormalization's variance as E[x^2] - E[x]^2): float32
            # rounding, hence the absolute tolerance.
            close = np.allclose(want, got, rtol=1e-5, atol=1e-5, equal_nan=True)
            if want.shape != got.shape or not close:
                return f"output {i} differs from {label}'s"
    return "passed"


def has_body(node: onnx.NodeProto, model: onnx.ModelProto) -> bool:
    """Whether onnx defines `node`'s operator by a function body (plain or
    built for each node) at the opset `model` imports."""
    opset = next(i.version for i in model.opset_import if i.domain == node.domain)
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
    except onnx.defs.SchemaError:
        return False
    versions = [*schema.function_opset_versions, *schema.context_dependent_function_opset_versions]
    return any(v <= opset for v in versions)


def load(onnxtxt: str, path: Path, work: Path) -> onnx.ModelProto:
    """The model at `path`, text read by `onnxtxt parse`."""
    if path.read_bytes()[:1] in (b"<", b"#", b" ", b"\n"):
        binary = work / "parsed.onnx"
        subprocess.run([onnxtxt, "parse", str(path), "-o", str(binary)], check=True)
        path = binary
    return onnx.load(str(path))


def tensor_type_for(schema: onnx.defs.OpSchema, type_str: str) -> int | None:
    """An element type a formal parameter of `schema` accepts: float if it
    can, else the first tensor type its constraint allows."""
    allowed = [type_str]
    for constraint in schema.type_constraints:
        if constraint.type_param_str == type_str:
            allowed = list(constraint.allowed_type_strs)
    tensors = [t[len("tensor(") : -1] for t in allowed if t.startswith("tensor(")]
    if not tensors:
        return None
    name = "float" if "float" in tensors else tensors[0]
    return getattr(onnx.TensorProto, name.upper()) if name != "string" else None


def schema_models() -> list[tuple[str, onnx.ModelProto]]:
    """Each plain function body of ai.onnx, at its operator's version, as
    the local function `local.NAME` of a model that calls it with every
    input given, tensors of rank 4."""
    models = []
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.domain != "" or not schema.has_function or schema.deprecated:
            continue
        body = onnx.FunctionProto()
        body.CopyFrom(schema.function_body)
        if any(a.required for a in schema.attributes.values()):
            continue
        inputs, outputs = [], []
        for formal, parameter in zip(body.input, schema.inputs, strict=False):
            elem = tensor_type_for(schema, parameter.type_str)
            if elem is None:
                break
            inputs.append(onnx.helper.make_tensor_value_info(formal, elem, ["N", "C", "H", "W"]))
        if len(inputs) != len(body.input):
            continue
        for formal in body.output:
            outputs.append(onnx.helper.make_empty_tensor_value_info(formal))
        body.domain = "local"
        # The operator's defaults become the function's.
        defaults = [
            a.default_value for a in schema.attributes.values() if a.default_value.type
        ]
        del body.attribute[:]
        body.attribute.extend(a.name for a in schema.attributes.values() if not a.default_value.type)
        body.attribute_proto.extend(defaults)
        opset = [i for i in body.opset_import if i.domain == ""]
        call = onnx.helper.make_node(body.name, list(body.input), list(body.output), domain="local")
        graph = onnx.helper.make_graph([call], "g", inputs, outputs)
        model = onnx.helper.make_model(
            graph,
            functions=[body],
            opset_imports=[*opset, onnx.helper.make_opsetid("local", 1)],
            ir_version=10,
        )
        models.append((f"{schema.name}-{schema.since_version}", model))
    return models


def operator_models() -> list[tuple[str, onnx.ModelProto]]:
    """Each ai.onnx operator, at each opset where a plain function body
    defines it, as the one node of a model with no local function."""
    models = []
    for name, body in schema_models():
        function = body.functions[0]
        schema_name, since = name.rsplit("-", 1)
        schema = onnx.defs.get_schema(schema_name, int(since), "")
        for opset in schema.function_opset_versions:
            if onnx.defs.get_schema(schema_name, opset, "").since_version != schema.since_version:
                continue
            model = onnx.ModelProto()
            model.CopyFrom(body)
            del model.functions[:]
            del model.opset_import[:]
            model.opset_import.append(onnx.helper.make_opsetid("", opset))
            node = model.graph.node[0]
            node.domain = ""
            node.op_type = function.name
            models.append((f"{name}.opset{opset}", model))
    return models


# Nodes of operators whose body onnx builds for each node (context-dependent
# functions), for which the registry has the body: (name, opset, input
# element types, shape, nodes (op_type, inputs, outputs, attributes)). The
# input of `LayerNormalization` in the last is typed by inference alone.
FLOAT, DOUBLE = onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE
CONTEXT_NODES = [
    ("Gelu", 20, [FLOAT], [("Gelu", ["x0"], ["y0"], {})]),
    ("Gelu-tanh", 20, [DOUBLE], [("Gelu", ["x0"], ["y0"], {"approximate": "tanh"})]),
    (
        "LayerNormalization-epsilon",
        17,
        [FLOAT, FLOAT],
        [("LayerNormalization", ["x0", "x1"], ["y0"], {"epsilon": 1e-6})],
    ),
    (
        "LayerNormalization-3-outputs",
        18,
        [FLOAT, FLOAT, FLOAT],
        [("LayerNormalization", ["x0", "x1", "x2"], ["y0", "y1", "y2"], {})],
    ),
    ("Softmax-axis", 13, [FLOAT], [("Softmax", ["x0"], ["y0"], {"axis": 1})]),
    ("Celu", 12, [FLOAT], [("Celu", ["x0"], ["y0"], {"alpha": 2.0})]),
    (
        "LayerNormalization-of-inferred",
        17,
        [FLOAT, FLOAT],
        [
            ("Neg", ["x0"], ["r"], {}),
            ("LayerNormalization", ["r", "x1"], ["y0"], {"epsilon": 1e-12}),
        ],
    ),
]


# Nodes of such operators in subgraphs, one on a value of the outer graph.
BRANCHES = """
<ir_version: 10, opset_import: ["": 20]>
g (float[N, C, H, W] x0, bool[1] c) => (float[N, C, H, W] y0) {
  y0 = If (c) <
    then_branch = t () => (float[N, C, H, W] a) { n = Neg (x0) a = Gelu (n) },
    else_branch = e () => (float[N, C, H, W] b) { b = Gelu <approximate = "tanh"> (x0) }
  >
}
"""


def context_models() -> list[tuple[str, onnx.ModelProto]]:
    """A model of each of CONTEXT_NODES, inputs of shape [N, C, H, W]
    (the later ones [W], as LayerNormalization's scale and bias on the last
    axis need), outputs untyped; and BRANCHES."""
    models = []
    for name, opset, elems, nodes in CONTEXT_NODES:
        inputs = [
            onnx.helper.make_tensor_value_info(
                f"x{i}", elem, ["N", "C", "H", "W"] if i == 0 else [DIMENSION]
            )
            for i, elem in enumerate(elems)
        ]
        made = [onnx.helper.make_node(op, i, o, **attributes) for op, i, o, attributes in nodes]
        outputs = [onnx.helper.make_empty_tensor_value_info(o) for o in made[-1].output]
        graph = onnx.helper.make_graph(made, "g", inputs, outputs)
        model = onnx.helper.make_model(
            graph, opset_imports=[onnx.helper.make_opsetid("", opset)], ir_version=10
        )
        models.append((f"{name}.opset{opset}", model))
    models.append(("Gelu-in-branches.opset20", onnx.parser.parse_model(BRANCHES)))
    return models


def main() -> int:
    onnxtxt, *args = sys.argv[1:]
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        cases = [(arg, load(onnxtxt, Path(arg), work)) for arg in args if not arg.startswith("--")]
        if "--schema-bodies" in args:
            cases += schema_models()
        operators = operator_models() + context_models() if "--schema-functions" in args else []
        for name, model, schema_functions in [(n, m, False) for n, m in cases] + [
            (n, m, True) for n, m in operators
        ]:
            verdict = compare(onnxtxt, name, model, work, schema_functions)
            if verdict in counts:
                counts[verdict] += 1
            else:
                counts["failed"] += 1
                print(f"{name}: {verdict}")
    print("inline(reference): {passed} passed, {failed} failed, {skipped} skipped".format(**counts))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
