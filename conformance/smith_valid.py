"""Valid models from `onnxtxt smith`, judged by the reference.

Usage: smith_valid.py ONNXTXT [--count N] [--first-seed S] [--swarm]

Writes the models of seeds S .. S+N-1 (`onnxtxt smith --seed K --binary`),
then for each: onnx.checker.check_model(m, full_check=True) must accept it
and `onnxtxt check` must give no error. Reports the accepted share, the
share of the registry's operators (ai.onnx, latest versions, deprecated
ones left out) that appear in some model, the operators that never do, and
the share of models that onnx.reference.ReferenceEvaluator runs on random
inputs of the declared shapes (symbolic dimensions 2; integers 1 to 4,
strings decimal numbers), with the operator each failure happened at and
why. Failures the evaluator would have on any model holding the operator
(no implementation, a module onnx does not install) or that are known
defects of the evaluator (listed in EVALUATOR_DEFECTS with its error) are
counted apart, and the share is given without them too.
Exits non-zero on any checker rejection or `check` error; coverage and
runnability are reported, not enforced.
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np
import onnx
import onnx.defs
import onnx.reference
from onnx.reference.op_run import OpRun

# What the evaluator cannot run at all, whatever the inputs: operators (or
# versions, or modes) it has no implementation of, and one whose
# implementation imports a module onnx does not depend on. Each: the
# operator, why, and what the evaluator's error says.
EVALUATOR_CANNOT_RUN = [
    ("GlobalLpPool", "no implementation", "operator 'GlobalLpPool'"),
    ("MaxRoiPool", "no implementation", "operator 'MaxRoiPool'"),
    ("Multinomial", "no implementation", "operator 'Multinomial'"),
    (
        "DequantizeLinear",
        "no implementation of version 13 (opsets 13 to 18)",
        "No implementation for operator 'DequantizeLinear' domain '' and version 1",
    ),
    (
        "GridSample",
        "version 16's mode names (bilinear, bicubic) not implemented",
        "GridSample interpolation only supports nearest, linear, and cubic modes",
    ),
    (
        "Scan",
        "backward scan inputs not implemented",
        "Scan is not implemented for other output input_direction than 0",
    ),
    (
        "ImageDecoder",
        "its implementation imports PIL (Pillow), which onnx does not install",
        "Pillow must be installed",
    ),
]

# Known defects of the evaluator (onnx 1.23.2) on valid nodes: operator,
# a test of its attributes, inputs and what went wrong, and what goes
# wrong, with the evaluator's error (or the output it gives where onnx's
# inference says otherwise).


def rank(inputs, i=0):
    return inputs[i].ndim if len(inputs) > i and inputs[i] is not None else -1


def integer(inputs, i=0):
    return np.issubdtype(inputs[i].dtype, np.integer)


EVALUATOR_DEFECTS = [
    (
        "ReduceLogSum",
        lambda attrs, inputs, why: integer(inputs),
        "on integers it returns float64, then fails its own output type check "
        "(TypeError: Issues with types ... (operator 'ReduceLogSum_18'))",
    ),
    (
        "ReduceLogSumExp",
        lambda attrs, inputs, why: integer(inputs) or rank(inputs) == 0,
        "on integers or a scalar it returns float64 or a NumPy scalar, then fails its "
        "own output type check (TypeError: Issues with types ... (operator 'ReduceLogSumExp_18'))",
    ),
    (
        "ReduceSumSquare",
        lambda attrs, inputs, why: integer(inputs),
        "on 32-bit or smaller integers it returns int64 (output gives int64 where onnx infers int32)",
    ),
    (
        "Softsign",
        lambda attrs, inputs, why: rank(inputs) == 0,
        "on a scalar it computes a NumPy scalar, not an array "
        "(TypeError: Issues with types <class 'numpy.ndarray'> (unary operator 'Softsign'))",
    ),
    (
        "Mean",
        lambda attrs, inputs, why: inputs[0].shape != np.broadcast_shapes(*(i.shape for i in inputs)),
        "it sums into its first input, which fails when that one broadcasts to the others "
        "(ValueError: non-broadcastable output operand with shape ...)",
    ),
    (
        "Bernoulli",
        lambda attrs, inputs, why: rank(inputs) == 0,
        "on a scalar NumPy gives a Python number (AttributeError: 'int' object has no attribute 'astype')",
    ),
    (
        "RandomNormalLike",
        lambda attrs, inputs, why: rank(inputs) == 0,
        "on a scalar NumPy gives a Python number (AttributeError: 'float' object has no attribute 'astype')",
    ),
    (
        "RandomUniformLike",
        lambda attrs, inputs, why: rank(inputs) == 0,
        "on a scalar NumPy gives a Python number (AttributeError: 'float' object has no attribute 'astype')",
    ),
    (
        "Det",
        lambda attrs, inputs, why: inputs[0].dtype == np.float16,
        "NumPy's linalg takes no float16 (TypeError: array type float16 is unsupported in linalg)",
    ),
    (
        "LRN",
        lambda attrs, inputs, why: rank(inputs) != 4 or inputs[0].shape[0] > inputs[0].shape[1],
        "it takes 4-D inputs only (RuntimeError: LRN only applies on 4D tensors) and loops over "
        "the batch where it means the channels (IndexError: index ... is out of bounds for axis 1)",
    ),
    (
        "GlobalMaxPool",
        lambda attrs, inputs, why: rank(inputs) != 4,
        "it reduces axes 2 and 3 counted from the spatial rank, right for 4-D inputs only "
        "(output gives shape (N, C) where onnx infers [N, C, 1])",
    ),
    (
        "MaxPool",
        lambda attrs, inputs, why: rank(inputs) == 3
        or attrs.get("ceil_mode")
        or any(attrs.get("pads", [])[: len(attrs.get("pads", [])) // 2])
        or integer(inputs) and (any(attrs.get("pads", [])) or attrs.get("auto_pad", b"").startswith(b"SAME")),
        "1-D pooling fails (IndexError: tuple index out of range; index ... is out of bounds); "
        "with ceil_mode its windows differ from onnx's rule (output gives shape (1, 1, 4, 3) "
        "where onnx infers [1, 1, 4, 2]), and with ceil_mode or a pad at the start some "
        "windows come out empty (ValueError: zero-size array to reduction operation maximum "
        "which has no identity); integers padded fail (ValueError: cannot convert float NaN "
        "to integer)",
    ),
    (
        "AveragePool",
        lambda attrs, inputs, why: attrs.get("ceil_mode") and attrs.get("auto_pad", b"NOTSET") != b"NOTSET"
        or any(k < s for k, s in zip(attrs.get("kernel_shape", []), attrs.get("strides", [])))
        and attrs.get("auto_pad", b"NOTSET").startswith(b"SAME"),
        "ceil_mode with auto_pad is refused (AssertionError: ceil_mode is not supported with "
        "auto_pad), and SAME padding of a kernel smaller than its stride gives negative pads "
        "(ValueError: index can't contain negative values)",
    ),
    (
        "LpPool",
        lambda attrs, inputs, why: attrs.get("ceil_mode") and attrs.get("auto_pad", b"NOTSET") != b"NOTSET",
        "ceil_mode with auto_pad is refused (AssertionError: ceil_mode is not supported with auto_pad)",
    ),
    (
        "ConvTranspose",
        lambda attrs, inputs, why: attrs.get("group", 1) > 1 or any(attrs.get("output_padding", [])),
        "groups and output padding go wrong (ValueError: cannot reshape array of size ...; "
        "ValueError: Given n_input_plane=...)",
    ),
    (
        "QLinearConv",
        lambda attrs, inputs, why: rank(inputs) != 4,
        "it handles 2-D images only (ValueError: operands could not be broadcast together; "
        "output gives shape (N, C, C, W) where onnx infers [N, C, W])",
    ),
    (
        "LayerNormalization",
        lambda attrs, inputs, why: inputs[0].dtype != np.float32,
        "its mean and inverse deviation outputs keep the input's type, not the float of "
        "stash_type (output gives float64 where onnx infers float32)",
    ),
    (
        "NonMaxSuppression",
        lambda attrs, inputs, why: len(inputs) < 4 or inputs[3] is None,
        "a maximum without an IoU threshold fails (AttributeError: 'NoneType' object has no attribute 'size')",
    ),
    (
        "OneHot",
        lambda attrs, inputs, why: inputs[2].dtype in (object, np.bool_),
        "string and bool values fail (TypeError: unsupported operand type(s) for -: 'str' and "
        "'str'; TypeError: numpy boolean subtract, the `-` operator, is not supported)",
    ),
    (
        "TfIdfVectorizer",
        lambda attrs, inputs, why: attrs.get("mode") != b"TF" and "weights" not in attrs,
        "IDF and TFIDF modes without weights fail (TypeError: object of type 'NoneType' has no len())",
    ),
    (
        "Unique",
        lambda attrs, inputs, why: inputs[0].dtype == object and "axis" in attrs,
        "strings along an axis fail (TypeError: Cannot change data-type for array of references)",
    ),
    (
        "Unique",
        lambda attrs, inputs, why: not attrs.get("sorted", 1),
        "unsorted with more than one output it takes along axis 0 whatever the axis, and "
        "fails on numpy 2's inverse indices (IndexError; TypeError: unhashable type: 'numpy.ndarray')",
    ),
    (
        "StringSplit",
        lambda attrs, inputs, why: rank(inputs) == 0,
        "a scalar fails (AssertionError in pad_empty_string)",
    ),
    (
        "OptionalGetElement",
        lambda attrs, inputs, why: isinstance(inputs[0], list),
        "Optional wraps a tensor in a list, which OptionalGetElement passes on "
        "(output gives a list where onnx infers a tensor)",
    ),
    (
        "AffineGrid",
        lambda attrs, inputs, why: inputs[0].dtype != np.float32,
        "it computes in float32 whatever the type (output gives float32 where onnx infers "
        "float16 or float64)",
    ),
    (
        "BatchNormalization",
        lambda attrs, inputs, why: attrs["version"] is not None and attrs["version"] < 9,
        "its implementation of versions before 9 (opsets 7 and 8) returns a tuple (TypeError: "
        "One of the results returned by method '_run' of class 'BatchNormalization_6' is a tuple)",
    ),
    (
        "Resize",
        lambda attrs, inputs, why: len(inputs) == 2,
        "version 10 (opset 10) does not read its scales input "
        "(ValueError: output_size is None and scale_factors is None)",
    ),
    (
        "Loop",
        lambda attrs, inputs, why: why.startswith("output gives shape"),
        "scan outputs of scalars are stacked into 2-D arrays (np.vstack) "
        "(output gives shape (2, 1) where onnx infers [None])",
    ),
    (
        "SequenceMap",
        lambda attrs, inputs, why: "Unable to find input" in why,
        "its body does not see the values of the graphs around it "
        "(RuntimeError: Unable to find input ... in known results)",
    ),
    *(
        (
            name,
            lambda attrs, inputs, why: all(rank(inputs, i) == 0 for i in range(len(inputs))),
            "of scalars it gives a NumPy scalar, not an array "
            "(output gives a float16 (int64, ...) where onnx infers a tensor)",
        )
        for name in ("Min", "Max")
    ),
    (
        "MaxUnpool",
        lambda attrs, inputs, why: len(inputs) > 2 and inputs[2] is not None,
        "it scatters into the shape the window gives back, not output_shape, where the "
        "indices point (IndexError: index ... is out of bounds for axis 0)",
    ),
    (
        "Equal",
        lambda attrs, inputs, why: {i.dtype.kind for i in inputs} == {"O", "U"},
        "it holds strings of initializers as objects and computed ones as str_, then refuses "
        "to compare the two (RuntimeTypeError: Input type mismatch: object != <U7)",
    ),
    (
        "GatherElements",
        lambda attrs, inputs, why: attrs.get("axis", 0) < 0,
        "a negative axis fails its own shape check (ValueError: Except for dimension -1, all "
        "dimensions of index and self should be the same size)",
    ),
    (
        "GridSample",
        lambda attrs, inputs, why: attrs.get("align_corners") and 1 in inputs[0].shape[2:],
        "with align_corners, a spatial size of 1 divides by zero "
        "(ValueError: cannot convert float NaN to integer; OverflowError: cannot convert float "
        "infinity to integer)",
    ),
    (
        "Pad",
        lambda attrs, inputs, why: len(inputs) > 1 and (inputs[1] < 0).any(),
        "negative pads (cropping) fail (ValueError: index can't contain negative values)",
    ),
]


def generate(onnxtxt, seed, path, swarm):
    command = [onnxtxt, "smith", "--seed", str(seed), "--binary", "-o", path]
    if swarm:
        command.append("--swarm")
    subprocess.run(command, check=True)


def operators(graph, found):
    for node in graph.node:
        found[(node.domain, node.op_type)] += 1
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                operators(attribute.g, found)


def random_input(value, rng):
    tensor = value.type.tensor_type
    shape = [d.dim_value if d.HasField("dim_value") else 2 for d in tensor.shape.dim]
    if tensor.elem_type == onnx.TensorProto.STRING:
        numbers = rng.integers(0, 100, size=shape)
        return np.vectorize(str, otypes=[object])(numbers).reshape(shape)
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(1, 5, size=shape).astype(dtype)
    return rng.standard_normal(size=shape).astype(dtype)


def inferred_types(model):
    """The type onnx's shape inference gives each value of the main graph."""
    inferred = onnx.shape_inference.infer_shapes(model)
    graph = inferred.graph
    values = list(graph.value_info) + list(graph.output) + list(graph.input)
    return {v.name: v.type for v in values}


def contradiction(ty, value):
    """How a value the evaluator computed contradicts the inferred type
    `ty` (element type, rank or a known dimension), if it does."""
    if ty is None or not ty.HasField("tensor_type"):
        return None
    if not isinstance(value, np.ndarray):
        return f"gives a {type(value).__name__} where onnx infers a tensor"
    tensor = ty.tensor_type
    if tensor.elem_type and tensor.elem_type != onnx.TensorProto.STRING:
        expected = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        if value.dtype != expected:
            return f"gives {value.dtype} where onnx infers {expected}"
    if tensor.HasField("shape"):
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
        known = all(a is None or a == b for a, b in zip(dims, value.shape))
        if len(dims) != value.ndim or not known:
            return f"gives shape {tuple(value.shape)} where onnx infers {dims}"
    return None


def innermost_operator(error):
    """The innermost operator (an onnx.reference OpRun) the error, or one
    it was raised from, passed through, and its inputs: where a node of a
    subgraph or function body failed, that node."""
    found = None
    while error is not None:
        for frame, _ in traceback.walk_tb(error.__traceback__):
            op = frame.f_locals.get("self")
            if isinstance(op, OpRun) and frame.f_code.co_name == "run":
                code = frame.f_code
                named = [frame.f_locals.get(n) for n in code.co_varnames[1 : code.co_argcount]]
                found = (op, named + list(frame.f_locals.get("args", ())))
        error = error.__cause__
    return found


def diagnosis(session, feeds, model):
    """Where the evaluator goes wrong and what happens, as (operator, its
    attributes, its inputs, reason): running the main graph again node by
    node, the first node whose output contradicts onnx's inference (a
    later node may be the one that fails on it), else the operator the
    error comes from (the node, or one in its subgraphs)."""
    types = inferred_types(model)
    results = {"": None, **session.rt_inits_, **feeds}
    for node in session.rt_nodes_:
        inputs = [results.get(name) for name in node.input]
        try:
            if node.need_context():
                outputs = node.run(*inputs, context=results)
            else:
                outputs = node.run(*inputs)
        except Exception as error:  # noqa: BLE001 - any failure is a finding
            op, op_inputs = innermost_operator(error) or (node, inputs)
            if op is node:
                op_inputs = inputs
            return op.onnx_node.op_type, attributes(op), op_inputs, describe(error)
        for name, value in zip(node.output, outputs):
            wrong = contradiction(types.get(name), value)
            if wrong is not None:
                return node.op_type, attributes(node), inputs, f"output {wrong}"
        results.update(zip(node.output, outputs))
    return "(run)", {}, [], "fails only when run whole"


def attributes(op):
    """The attributes of the node an OpRun runs, by name, and under
    "version" the operator version of the implementation the evaluator
    chose (the suffix of its class name, `BatchNormalization_6`)."""
    found = {a.name: onnx.helper.get_attribute_value(a) for a in op.onnx_node.attribute}
    suffix = type(op).__name__.rpartition("_")[2]
    found["version"] = int(suffix) if suffix.isdigit() else None
    return found


def describe(error):
    """The error's type and first line; for the evaluator's "Issues with
    types" wrapper, the error it wraps."""
    while isinstance(error, TypeError) and error.__cause__ is not None:
        error = error.__cause__
    text = str(error).splitlines()[0][:160] if str(error) else ""
    return f"{type(error).__name__}: {text}"


def cannot_run(error):
    """The operator and reason of EVALUATOR_CANNOT_RUN an error (or one it
    was raised from) is about, if any."""
    while error is not None:
        for name, reason, says in EVALUATOR_CANNOT_RUN:
            if says in str(error):
                return name, reason
        error = error.__cause__
    return None


def run(model, rng):
    """None when the reference evaluator runs the model, else (operator,
    kind, reason): kind is "cannot run", "defect" or "failure"."""
    try:
        session = onnx.reference.ReferenceEvaluator(model)
    except Exception as error:  # noqa: BLE001 - any failure is a finding
        unsupported = cannot_run(error)
        if unsupported is not None:
            return unsupported[0], "cannot run", unsupported[1]
        return "(loading)", "failure", describe(error)
    initializers = {t.name for t in model.graph.initializer}
    feeds = {
        v.name: random_input(v, rng)
        for v in model.graph.input
        if v.name not in initializers
    }
    try:
        with np.errstate(all="ignore"):
            session.run(None, feeds)
        return None
    except Exception as error:  # noqa: BLE001 - any failure is a finding
        unsupported = cannot_run(error)
        if unsupported is not None:
            return unsupported[0], "cannot run", unsupported[1]
        with np.errstate(all="ignore"):
            op, attrs, inputs, why = diagnosis(session, feeds, model)
        arrays = [i if i is None or isinstance(i, list) else np.asarray(i) for i in inputs]
        for name, applies, reason in EVALUATOR_DEFECTS:
            if name == op and applies(attrs, arrays, why):
                return op, "defect", reason
        return op, "failure", why


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("onnxtxt")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--swarm", action="store_true")
    args = parser.parse_args()

    rejected, check_errors, found = [], [], collections.Counter()
    not_run = collections.Counter()
    kinds = collections.Counter()
    ran = 0
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.first_seed, args.first_seed + args.count):
            path = os.path.join(tmp, f"smith{seed}.onnx")
            generate(args.onnxtxt, seed, path, args.swarm)
            model = onnx.load(path)
            try:
                onnx.checker.check_model(model, full_check=True)
            except Exception as error:  # noqa: BLE001
                rejected.append((seed, str(error).splitlines()[0][:300]))
                continue
            check = subprocess.run(
                [args.onnxtxt, "check", path], capture_output=True, text=True
            )
            if check.returncode != 0:
                check_errors.append((seed, check.stderr.strip()[:300]))
            operators(model.graph, found)
            outcome = run(model, rng)
            if outcome is None:
                ran += 1
            else:
                op, kind, reason = outcome
                kinds[kind] += 1
                not_run[(op, kind, reason)] += 1

    registry = {
        s.name
        for s in onnx.defs.get_all_schemas()
        if s.domain == "" and not s.deprecated
    }
    covered = {name for (domain, name) in found if domain == "" and name in registry}
    accepted = args.count - len(rejected)
    mode = "swarm" if args.swarm else "default config"
    print(f"smith({mode}): {args.count} models, seeds {args.first_seed}..{args.first_seed + args.count - 1}")
    print(f"smith: onnx.checker (full_check) accepted {accepted}/{args.count} ({100 * accepted / args.count:.1f}%)")
    for seed, error in rejected[:20]:
        print(f"  rejected seed {seed}: {error}")
    print(f"smith: onnxtxt check errors on {len(check_errors)} accepted models")
    for seed, error in check_errors[:20]:
        print(f"  check error seed {seed}: {error}")
    print(
        f"smith: operator coverage {len(covered)}/{len(registry)} "
        f"({100 * len(covered) / len(registry):.1f}%) of ai.onnx's latest non-deprecated operators"
    )
    print(f"smith: never generated: {' '.join(sorted(registry - covered)) or '(none)'}")
    if accepted:
        print(f"smith: ReferenceEvaluator ran {ran}/{accepted} ({100 * ran / accepted:.1f}%)")
        others = accepted - kinds["cannot run"] - kinds["defect"]
        print(
            f"smith: not counting {kinds['cannot run']} models holding an operator it cannot run "
            f"and {kinds['defect']} meeting a known defect of it: ran {ran}/{others} "
            f"({100 * ran / max(others, 1):.1f}%)"
        )
    by_op = collections.defaultdict(list)
    for (op, kind, reason), n in not_run.items():
        by_op[op].append((n, kind, reason))
    for op, reasons in sorted(by_op.items(), key=lambda item: -sum(n for n, _, _ in item[1])):
        total = sum(n for n, _, _ in reasons)
        print(f"  {op}: {total} models")
        for n, kind, reason in sorted(reasons, reverse=True)[:4]:
            print(f"    {n} x {kind}: {reason}")
    sys.exit(1 if rejected or check_errors else 0)


if __name__ == "__main__":
    main()
