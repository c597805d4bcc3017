"""What onnxruntime implements, as an `onnxtxt smith` profile; and how many
models of a directory it loads.

    python fuzz/probe_onnxruntime.py probe ONNXTXT PROFILE.json [--per-opset N]
    python fuzz/probe_onnxruntime.py load DIR

`probe` has `ONNXTXT smith` make N single-node models at each opset (its
default configuration, `--max-nodes 1`), loads each in an onnxruntime
session (CPU), and writes the profile: for each operator and signature
(the element types of its first input and first output, as
`onnxtxt::smith::Kernel::signature` spells them), the opsets at which a
model loaded and none failed for want of a kernel. `smith --config
PROFILE.json` then makes only nodes the profile lists.

`load` prints how many of DIR's models (`.onnx`) onnxruntime loads, and
the commonest reasons of those it does not.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

import onnx
import onnxruntime

onnxruntime.set_default_logger_severity(3)

MISSING_KERNEL = re.compile(r"Could not find an implementation for (\w+)\(")


def type_name(t):
    """A value's type as a signature spells it."""
    kind = t.WhichOneof("value")
    if kind == "tensor_type":
        return onnx.TensorProto.DataType.Name(t.tensor_type.elem_type).lower()
    if kind == "sequence_type":
        return f"seq({type_name(t.sequence_type.elem_type)})"
    if kind == "optional_type":
        return f"optional({type_name(t.optional_type.elem_type)})"
    return "?"


def signature(model):
    """The main graph's node, and its signature: `IN -> OUT`."""
    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    types = {v.name: type_name(v.type) for v in [*g.input, *g.output, *g.value_info]}
    for t in g.initializer:
        types[t.name] = onnx.TensorProto.DataType.Name(t.data_type).lower()
    node = g.node[0]
    first_in = node.input[0] if node.input and node.input[0] else None
    first_out = node.output[0] if node.output else None
    return node.op_type, f"{types.get(first_in, '?') if first_in else ''} -> {types.get(first_out, '?') if first_out else ''}"


def load(path):
    """`None` if onnxruntime loads the model, else its error."""
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4
    try:
        onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        return None
    except Exception as e:  # onnxruntime raises several kinds
        return str(e)


def probe(onnxtxt, out, per_opset):
    seen = collections.defaultdict(set)
    refused = set()
    latest = onnx.defs.onnx_opset_version()
    with tempfile.TemporaryDirectory() as tmp:
        for opset in range(7, latest + 1):
            folder = os.path.join(tmp, str(opset))
            subprocess.run(
                [onnxtxt, "smith", "--max-nodes", "1", "--no-functions",
                 "--min-opset", str(opset), "--max-opset", str(opset),
                 "--count", str(per_opset), "--seed", str(opset * 1_000_000),
                 "--binary", "-o", folder],
                check=True)
            loaded = 0
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                model = onnx.load(path)
                if len(model.graph.node) != 1:
                    continue
                op, sig = signature(model)
                error = load(path)
                if error is None:
                    seen[(op, sig)].add(opset)
                    loaded += 1
                    continue
                missing = MISSING_KERNEL.search(error)
                if missing is None or missing.group(1) == op:
                    refused.add((op, sig, opset))
            print(f"opset {opset}: {loaded} of {per_opset} loaded", file=sys.stderr)
    kernels = []
    for (op, sig), opsets in sorted(seen.items()):
        kept = sorted(o for o in opsets if (op, sig, o) not in refused)
        if kept:
            kernels.append({"operator": op, "signature": sig, "opsets": kept})
    # One kernel a line, for diffs between onnxruntime versions.
    with open(out, "w") as f:
        f.write('{"implemented": [\n')
        f.write(",\n".join(json.dumps(k) for k in kernels))
        f.write("\n]}\n")
    print(f"{out}: {len(kernels)} operator signatures "
          f"(onnxruntime {onnxruntime.__version__})", file=sys.stderr)


def count_loads(folder):
    reasons = collections.Counter()
    names = sorted(n for n in os.listdir(folder) if n.endswith(".onnx"))
    for name in names:
        error = load(os.path.join(folder, name))
        if error is not None:
            missing = MISSING_KERNEL.search(error)
            reasons[f"no kernel for {missing.group(1)}" if missing else error.splitlines()[0][:100]] += 1
    print(f"{len(names) - sum(reasons.values())} of {len(names)} loaded")
    for reason, n in reasons.most_common(8):
        print(f"  {n:4} {reason}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("probe")
    p.add_argument("onnxtxt")
    p.add_argument("out")
    p.add_argument("--per-opset", type=int, default=1500)
    l = sub.add_parser("load")
    l.add_argument("dir")
    args = parser.parse_args()
    if args.command == "probe":
        probe(args.onnxtxt, args.out, args.per_opset)
    else:
        count_loads(args.dir)


if __name__ == "__main__":
    main()
