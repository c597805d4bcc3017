"""Inference mutants: `onnxtxt check` catches, at the node, every type or
shape mistake onnx.checker (with its strict shape inference) rejects.

Usage: infer_mutants.py ONNXTXT_BINARY [--per-kind N] [--kinds K,K...]

Takes the models of the conformance corpus ($ONNXTXT_CORPUS, default
target/conformance) that `onnx.checker.check_model(m, full_check=True)`
accepts and makes mutants of them, each with one mistake of one kind (a
function below per kind, in KINDS) at one node of the main graph, named
`mutant` so that its lines in the printed text are known. A mutant the
reference rejects is kept; then `onnxtxt --error-format json check` must
report an error located at the mutated node, in the binary (by IR path: the
node's, or one inside it) and in the text `onnxtxt print` writes (on one of
the node's lines, at the node's IR path).

A kind is a function `kind(model, node) -> bool` that makes its mistake at
`node` (a copy of a node of `model.graph`, written back when the kind says
it could; a kind may change the model too, as a declared type does). The
mistakes: a declared shape or element type contradicting the inferred one,
incompatible shapes (`MatMul` inner dimensions, broadcasting), an axis out
of range, an element type a type constraint does not allow, two inputs of
one type variable with different element types. Shapes are taken as the
checker knows them (no data propagation) where a mistake depends on them,
so that the checker's error is at the mutated node too.

--per-kind N tries N models per kind (spread over the corpus; 0 for all).
Prints `infer-mutants(KIND): C caught of K kept (of M made)` per kind and
fails unless every kept mutant is caught.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
import onnx.defs
import onnx.shape_inference
from onnx import TensorProto

import mutants
from mutants import LABEL, accepted_models, at_node, chosen, mutate, node_lines, reference_rejects

CRATE = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# What the mutations need to know.


def schema_of(model, node):
    """The schema of `node` in force, or None (also for a deprecated one)."""
    schema = mutants.schema_of(model, node)
    return None if schema is None or schema.deprecated else schema


def value_types(model, data_prop=True):
    """The type of every value of the main graph, as onnx infers it (not
    strict; with data propagation unless told otherwise), by name."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=data_prop)
    except Exception:
        return {}
    graph = inferred.graph
    types = {}
    for init in graph.initializer:
        t = onnx.TypeProto()
        t.tensor_type.elem_type = init.data_type
        for d in init.dims:
            t.tensor_type.shape.dim.add().dim_value = d
        types[init.name] = t
    for vi in [*graph.input, *graph.value_info, *graph.output]:
        if vi.type.WhichOneof("value") is not None:
            types[vi.name] = vi.type
    return types


def defined_before(model, node_index):
    """The names a node at `node_index` may read: graph inputs,
    initializers, earlier nodes' outputs."""
    graph = model.graph
    names = [i.name for i in graph.input] + [i.name for i in graph.initializer]
    for node in graph.node[:node_index]:
        names += [o for o in node.output if o]
    return names


def index_of(model, node):
    """The index in the main graph of the node `node` is a copy of (by its
    outputs)."""
    for i, n in enumerate(model.graph.node):
        if list(n.output) == list(node.output) and n.op_type == node.op_type:
            return i
    return None


def elem_of(ty):
    if ty is None or ty.WhichOneof("value") != "tensor_type":
        return None
    return ty.tensor_type.elem_type or None


def known_shape(ty):
    """The dims of a tensor type whose shape is fully known, or None."""
    if ty is None or ty.WhichOneof("value") != "tensor_type" or not ty.tensor_type.HasField("shape"):
        return None
    dims = []
    for d in ty.tensor_type.shape.dim:
        if not d.HasField("dim_value"):
            return None
        dims.append(d.dim_value)
    return dims


def type_name(elem):
    return f"tensor({onnx.helper.tensor_dtype_to_string(elem).removeprefix('TensorProto.').lower()})"


def allowed(schema, param):
    """The type strings a formal parameter allows."""
    for c in schema.type_constraints:
        if c.type_param_str == param.type_str:
            return set(c.allowed_type_strs)
    return {param.type_str}


def formal(schema, i):
    """The formal parameter of input `i`."""
    params = schema.inputs
    if not params:
        return None
    if i < len(params):
        return params[i]
    last = params[-1]
    return last if last.option == onnx.defs.OpSchema.FormalParameterOption.Variadic else None


def declare(model, name, ty):
    """Declares `name` of type `ty`: in the graph output or value_info that
    declares it, else in a new value_info."""
    graph = model.graph
    for vi in [*graph.output, *graph.value_info]:
        if vi.name == name:
            vi.type.CopyFrom(ty)
            return
    vi = graph.value_info.add()
    vi.name = name
    vi.type.CopyFrom(ty)


OTHER_ELEM = {
    TensorProto.FLOAT: TensorProto.DOUBLE,
    TensorProto.DOUBLE: TensorProto.FLOAT,
    TensorProto.INT64: TensorProto.INT32,
    TensorProto.INT32: TensorProto.INT64,
    TensorProto.FLOAT16: TensorProto.FLOAT,
    TensorProto.BOOL: TensorProto.INT64,
    TensorProto.UINT8: TensorProto.INT8,
    TensorProto.INT8: TensorProto.UINT8,
}


# ---------------------------------------------------------------------------
# The kinds of mistakes, one function each: `kind(model, node) -> bool`.


def wrong_declared_shape(model, node):
    """The node's output declared with one dimension off by one: a
    dimension the checker infers (without data propagation), so that the
    contradiction is at this node, not at a later one whose shape it
    changes."""
    if schema_of(model, node) is None or not node.output or not node.output[0]:
        return False
    ty = value_types(model, data_prop=False).get(node.output[0])
    dims = known_shape(ty)
    if not dims:
        return False
    declared = onnx.TypeProto()
    declared.CopyFrom(ty)
    j = len(dims) - 1
    declared.tensor_type.shape.dim[j].dim_value = dims[j] + 1
    declare(model, node.output[0], declared)
    return True


def wrong_declared_element_type(model, node):
    """The node's output declared with another element type."""
    if schema_of(model, node) is None or not node.output or not node.output[0]:
        return False
    ty = value_types(model).get(node.output[0])
    elem = elem_of(ty)
    if elem not in OTHER_ELEM:
        return False
    declared = onnx.TypeProto()
    declared.CopyFrom(ty)
    declared.tensor_type.elem_type = OTHER_ELEM[elem]
    declare(model, node.output[0], declared)
    return True


def incompatible_shapes(model, node):
    """An input of `MatMul`, `Gemm` or a broadcasting operator replaced with
    a value of the same element type and a shape it cannot take (inner
    dimensions that differ, dimensions that do not broadcast), as the
    checker knows the shapes (without data propagation)."""
    ops = {"MatMul", "Gemm", "Add", "Sub", "Mul", "Div", "Pow", "Equal", "Less", "Greater", "Where", "Concat"}
    if node.op_type not in ops or schema_of(model, node) is None or len(node.input) < 2:
        return False
    index = index_of(model, node)
    types = value_types(model, data_prop=False)
    shapes = [known_shape(types.get(i)) for i in node.input]
    if any(s is None for s in shapes):
        return False
    i = 1 if node.op_type != "Where" else 2
    elem = elem_of(types.get(node.input[i]))
    for name in defined_before(model, index):
        shape = known_shape(types.get(name))
        if shape is None or elem_of(types.get(name)) != elem or name == node.input[i]:
            continue
        trial = [*shapes[:i], shape, *shapes[i + 1:]]
        if incompatible(node.op_type, trial, node):
            node.input[i] = name
            return True
    return False


def incompatible(op, shapes, node):
    """Whether the shapes are certainly wrong for `op` (ranks kept simple:
    what every version's rule refuses)."""
    if op == "MatMul":
        a, b = shapes[0], shapes[1]
        return len(a) >= 2 and len(b) >= 2 and a[-1] != b[-2] and a[-1] != 0 and b[-2] != 0
    if op == "Gemm":
        return False
    if op == "Concat":
        return len(shapes[0]) != len(shapes[1]) and len(shapes[1]) > 0
    rank = max(len(s) for s in shapes)
    for k in range(1, rank + 1):
        sizes = {s[-k] for s in shapes if len(s) >= k} - {1}
        if len(sizes) > 1:
            return True
    return False


def axis_out_of_range(model, node):
    """The node's `axis` attribute set past its input's rank."""
    schema = schema_of(model, node)
    if schema is None or "axis" not in schema.attributes or not node.input:
        return False
    if schema.attributes["axis"].type != onnx.defs.OpSchema.AttrType.INT:
        return False
    shape = known_shape(value_types(model).get(node.input[0]))
    if shape is None:
        return False
    for attr in node.attribute:
        if attr.name == "axis":
            attr.i = len(shape) + 3
            return True
    node.attribute.append(onnx.helper.make_attribute("axis", len(shape) + 3))
    return True


def element_type_not_allowed(model, node):
    """An input replaced with a value whose element type the input's type
    constraint does not allow."""
    schema = schema_of(model, node)
    if schema is None:
        return False
    index = index_of(model, node)
    types = value_types(model)
    for i, current in enumerate(node.input):
        param = formal(schema, i)
        if not current or param is None:
            continue
        ok = allowed(schema, param)
        for name in defined_before(model, index):
            elem = elem_of(types.get(name))
            if elem is not None and type_name(elem) not in ok:
                node.input[i] = name
                return True
    return False


def mismatched_type_variables(model, node):
    """Of two inputs bound to one type variable, one replaced with a value
    of another element type the variable allows."""
    schema = schema_of(model, node)
    if schema is None:
        return False
    index = index_of(model, node)
    types = value_types(model)
    params = [formal(schema, i) for i in range(len(node.input))]
    for i in range(len(node.input)):
        for j in range(i + 1, len(node.input)):
            if not node.input[i] or not node.input[j] or params[i] is None or params[j] is None:
                continue
            if params[i].type_str != params[j].type_str or params[i].type_str not in {
                c.type_param_str for c in schema.type_constraints
            }:
                continue
            bound = elem_of(types.get(node.input[i]))
            ok = allowed(schema, params[j])
            for name in defined_before(model, index):
                elem = elem_of(types.get(name))
                if elem is not None and elem != bound and type_name(elem) in ok:
                    node.input[j] = name
                    return True
    return False


KINDS = [
    wrong_declared_shape,
    wrong_declared_element_type,
    incompatible_shapes,
    axis_out_of_range,
    element_type_not_allowed,
    mismatched_type_variables,
]


# ---------------------------------------------------------------------------
# Making and judging mutants.


def errors_of(onnxtxt, file):
    run = subprocess.run(
        [onnxtxt, "--error-format", "json", "check", str(file)], capture_output=True, text=True
    )
    if run.returncode not in (0, 1):
        sys.exit(f"{file}: onnxtxt check exited {run.returncode}\n{run.stderr}")
    found = []
    for line in run.stderr.splitlines():
        diagnostic = json.loads(line)
        if diagnostic.get("level") == "error":
            found.append(diagnostic)
    return found


def missed(onnxtxt, directory, name, mutant, index):
    """What is not caught: in the binary, in the text, or nothing."""
    binary = directory / f"{name}.onnx"
    text = directory / f"{name}.onnxtxt"
    binary.write_bytes(mutant.SerializeToString())
    run = subprocess.run([onnxtxt, "print", str(binary), "-o", str(text)], capture_output=True)
    if run.returncode != 0:
        sys.exit(f"{binary}: onnxtxt print failed\n{run.stderr.decode()}")
    path = f"graph.node[{index}]"
    out = []
    if not any(at_node(e, path) for e in errors_of(onnxtxt, binary)):
        out.append("in the binary")
    span = node_lines(text.read_text().splitlines(), LABEL)
    if not any(at_node(e, path) and e["span"].get("line") in span for e in errors_of(onnxtxt, text)):
        out.append(f"in the text (lines {span.start}-{span.stop - 1})")
    return out


def main(args):
    onnxtxt = args[0]
    per_kind = int(args[args.index("--per-kind") + 1]) if "--per-kind" in args else 0
    kinds = KINDS
    if "--kinds" in args:
        wanted = args[args.index("--kinds") + 1].split(",")
        kinds = [k for k in KINDS if k.__name__ in wanted]
    corpus = Path(os.environ.get("ONNXTXT_CORPUS", "target/conformance"))
    corpus = corpus if corpus.is_absolute() else CRATE / corpus
    models = list(accepted_models(corpus))
    failures = 0
    total_kept = 0
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for k, kind in enumerate(kinds):
            made = kept = caught = 0
            for name, model in chosen(models, per_kind, k):
                found = mutate(model, kind, f"{name} {kind.__name__}")
                if found is None:
                    continue
                made += 1
                mutant, index = found
                if not reference_rejects(mutant):
                    continue
                kept += 1
                file = f"{kind.__name__}__{name.replace('/', '__')}"
                not_caught = missed(onnxtxt, directory, file, mutant, index)
                if not_caught:
                    failures += 1
                    print(f"NOT CAUGHT ({kind.__name__}) {name}: {', '.join(not_caught)}")
                else:
                    caught += 1
            total_kept += kept
            print(f"infer-mutants({kind.__name__}): {caught} caught of {kept} kept (of {made} made)")
    print(f"infer-mutants: {total_kept - failures} caught of {total_kept} kept")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
