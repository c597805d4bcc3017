"""Writes the benchmark inputs, deterministically (fixed seeds), to $BENCH_DIR.

Usage: python bench/gen.py OUT_DIR [--quick]

For every case it writes <case>.onnx (the binary, built with onnx.helper) and
<case>.txt (the reference printer's text of it, onnx.printer.to_text), and
one line per case to OUT_DIR/cases.tsv: name, shape, size (1, 2, 4, 8, 16 =
N to 16N), kind ("model" or "batch"), count of models, description.

Shapes, at 1N, 2N, 4N, 8N and 16N (quick mode: 1N, 2N and 4N, smaller):
  weights-<size>    weight-heavy: MatMul/Add/Relu layers whose 512x512 weights
                    and biases are float32 initializers in raw_data; 4N is
                    ~10.5M parameters, the issue's size (quick mode: 16x fewer).
  nodes-<size>      node-heavy: small nodes with attributes and PyTorch-style
                    names that need quotes ("/blocks.3/conv/Conv_output_0");
                    4N is 50,000 nodes, the issue's size (quick mode: 10x
                    fewer). The sizes below it show time per item where the
                    working set still fits the cache, those above it how
                    time grows from the issue's size on.
  corpus            every onnx.backend.test node test model
                    (collect_testcases(None)) as one batch, keeping those the
                    reference prints and parses back; .onnx.batch and
                    .txt.batch are records framed by a little-endian u32
                    length. Skipped with --no-corpus.
  real-<model>      the model graphs that ship in the onnx wheel
                    (onnx/backend/test/data/light/*.onnx: densenet121,
                    inception, resnet50, ...), their bytes as shipped; listed
                    in OUT_DIR/real.tsv (same columns), which only the
                    end-to-end bench (bench/e2e.py) reads.
  constants-<model>, subgraphs, initializers
                    models shaped like exporters' (issue 40), listed in
                    OUT_DIR/exported.tsv, end to end only (not in quick mode).
                    constants-<model>: a wheel model (squeezenet, shufflenet,
                    densenet121) with every weight in a named `Constant` node:
                    its `ConstantOfShape` stand-ins filled with random weights
                    of their shape, its initializers moved into `Constant`s
                    (raw_data as shipped); every other new tensor is stored
                    typed (float_data), the rest raw, as exporters mix them.
                    subgraphs: 20 nested `If`s, each branch holding weights in
                    `Constant`s, each else branch a `Loop` whose body holds one.
                    initializers: 30,000 small initializers (1 to 64 values,
                    float, int64, int32, double, uint8, raw and typed), two
                    thirds of them read by 20,000 nodes.

Inputs are reused when OUT_DIR/stamp matches this file's hash and the mode.
"""

import hashlib
import struct
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnx.helper as h
import onnx.numpy_helper as nh
import onnx.parser
import onnx.printer

OPSET = [h.make_opsetid("", 21)]
HIDDEN = 512  # weight-heavy layer width: 512*512 + 512 parameters a layer


def weight_heavy(layers: int, seed: int) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    x = "input"
    for i in range(layers):
        w = (rng.standard_normal((HIDDEN, HIDDEN)) * 0.02).astype(np.float32)
        b = (rng.standard_normal(HIDDEN) * 0.02).astype(np.float32)
        wn, bn = f"layers.{i}.weight", f"layers.{i}.bias"
        inits += [nh.from_array(w, wn), nh.from_array(b, bn)]  # raw_data
        mm, add, relu = (f"/layers.{i}/{op}_output_0" for op in ("MatMul", "Add", "Relu"))
        nodes += [
            h.make_node("MatMul", [x, wn], [mm], name=f"/layers.{i}/MatMul"),
            h.make_node("Add", [mm, bn], [add], name=f"/layers.{i}/Add"),
            h.make_node("Relu", [add], [relu], name=f"/layers.{i}/Relu"),
        ]
        x = relu
    nodes.append(h.make_node("Identity", [x], ["output"], name="/Identity"))
    graph = h.make_graph(
        nodes,
        "weight_heavy",
        [h.make_tensor_value_info("input", onnx.TensorProto.FLOAT, ["batch", HIDDEN])],
        [h.make_tensor_value_info("output", onnx.TensorProto.FLOAT, ["batch", HIDDEN])],
        inits,
    )
    return h.make_model(graph, opset_imports=OPSET, producer_name="bench/gen.py")


def node_heavy(blocks: int, seed: int) -> onnx.ModelProto:
    """blocks * 10 nodes, every one named and most with attributes."""
    rng = np.random.default_rng(seed)
    nodes = []
    x = "input"
    params = ["onnx::Conv_1", "onnx::Conv_2", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"]
    shapes = [[64, 64, 3, 3], [64], [64], [64], [64], [64]]
    for i in range(blocks):
        p = f"/blocks.{i}"

        def out(op, k=0):
            return f"{p}/{op}_output_{k}"

        k = int(rng.choice([1, 3, 5]))
        nodes += [
            h.make_node("Conv", [x, params[0], params[1]], [out("conv/Conv")], name=f"{p}/conv/Conv",
                        dilations=[1, 1], group=int(rng.choice([1, 2, 4])), kernel_shape=[k, k],
                        pads=[k // 2] * 4, strides=[1, 1]),
            h.make_node("BatchNormalization", [out("conv/Conv")] + params[2:], [out("bn/BatchNormalization")],
                        name=f"{p}/bn/BatchNormalization", epsilon=float(rng.uniform(1e-6, 1e-4)), momentum=0.9),
            h.make_node("Relu", [out("bn/BatchNormalization")], [out("act/Relu")], name=f"{p}/act/Relu"),
            h.make_node("Constant", [], [out("Constant")], name=f"{p}/Constant",
                        value=h.make_tensor("", onnx.TensorProto.INT64, [1], [int(rng.integers(0, 4))])),
            h.make_node("Unsqueeze", [out("act/Relu"), out("Constant")], [out("Unsqueeze")], name=f"{p}/Unsqueeze"),
            h.make_node("Transpose", [out("Unsqueeze")], [out("Transpose")], name=f"{p}/Transpose",
                        perm=[int(v) for v in rng.permutation(5)]),
            h.make_node("Constant", [], [out("Constant", 1)], name=f"{p}/Constant_1",
                        value_ints=[1, -1, int(rng.integers(1, 1024))]),
            h.make_node("Reshape", [out("Transpose"), out("Constant", 1)], [out("Reshape")], name=f"{p}/Reshape",
                        allowzero=0),
            h.make_node("LeakyRelu", [out("Reshape")], [out("LeakyRelu")], name=f"{p}/LeakyRelu",
                        alpha=float(rng.uniform(0.001, 0.3))),
            h.make_node("Softmax", [out("LeakyRelu")], [out("Softmax")], name=f"{p}/Softmax", axis=-1),
        ]
        x = out("Softmax")
    nodes.append(h.make_node("Identity", [x], ["output"], name="/Identity"))
    inputs = [h.make_tensor_value_info("input", onnx.TensorProto.FLOAT, ["batch", 64, 32, 32])]
    inputs += [h.make_tensor_value_info(n, onnx.TensorProto.FLOAT, s) for n, s in zip(params, shapes)]
    graph = h.make_graph(
        nodes, "node_heavy", inputs,
        [h.make_tensor_value_info("output", onnx.TensorProto.FLOAT, ["batch", "seq"])],
    )
    return h.make_model(graph, opset_imports=OPSET, producer_name="bench/gen.py")


def write_case(out: Path, name: str, model: onnx.ModelProto) -> None:
    text = onnx.printer.to_text(model)
    onnx.parser.parse_model(text)  # the reference must accept its own text
    (out / f"{name}.onnx").write_bytes(model.SerializeToString())
    (out / f"{name}.txt").write_text(text, encoding="utf-8")


def frame(records) -> bytes:
    return b"".join(struct.pack("<I", len(r)) + r for r in records)


def corpus(out: Path) -> tuple[int, int]:
    warnings.simplefilter("ignore")  # numpy noise from computing expected outputs
    from onnx.backend.test.case.node import collect_testcases

    bins, texts, dropped = [], [], 0
    for case in sorted(collect_testcases(None), key=lambda c: c.name):
        try:
            text = onnx.printer.to_text(case.model)
            onnx.parser.parse_model(text)
        except Exception:  # the reference cannot round-trip this one
            dropped += 1
            continue
        bins.append(case.model.SerializeToString())
        texts.append(text.encode("utf-8"))
    (out / "corpus.onnx.batch").write_bytes(frame(bins))
    (out / "corpus.txt.batch").write_bytes(frame(texts))
    return len(bins), dropped


def real_models(out: Path) -> list[tuple]:
    light = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    cases = []
    for path in sorted(light.glob("*.onnx")):
        name = "real-" + path.stem.removeprefix("light_")
        model = onnx.load_model(path)
        text = onnx.printer.to_text(model)
        onnx.parser.parse_model(text)
        (out / f"{name}.onnx").write_bytes(path.read_bytes())
        (out / f"{name}.txt").write_text(text, encoding="utf-8")
        cases.append((name, "real", 1, "model", 1, f"{path.name} from the onnx wheel, {len(model.graph.node)} nodes"))
    return cases


def weights(rng, dims, typed: bool) -> onnx.TensorProto:
    """Random float32 weights of shape `dims`, stored typed (float_data) or raw (raw_data)."""
    values = (rng.standard_normal(dims) * 0.02).astype(np.float32)
    if typed:
        return h.make_tensor("", onnx.TensorProto.FLOAT, dims, values.flatten().tolist())
    return nh.from_array(values, "")


def constant(name: str, output: str, tensor: onnx.TensorProto) -> onnx.NodeProto:
    tensor.name = ""
    return h.make_node("Constant", [], [output], name=name, value=tensor)


def constants(path: Path, seed: int) -> onnx.ModelProto:
    """The wheel model at `path` with its weights in named `Constant` nodes (see the module doc)."""
    rng = np.random.default_rng(seed)
    model = onnx.load_model(path)
    graph = model.graph
    shapes = {t.name: nh.to_array(t) for t in graph.initializer}
    made, kept_nodes = [], []
    for node in graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in shapes:
            dims = [int(d) for d in shapes[node.input[0]]]
            made.append(constant(node.output[0] + "/Constant", node.output[0], weights(rng, dims, len(made) % 2 == 1)))
        else:
            kept_nodes.append(node)
    used = {name for node in kept_nodes for name in node.input}
    moved = [t for t in graph.initializer if t.name in used]
    made += [constant(t.name + "/Constant", t.name, onnx.TensorProto.FromString(t.SerializeToString()))
             for t in moved]
    defined = {t.name for t in graph.initializer} | {out for node in made for out in node.output}
    inputs = [i for i in graph.input if i.name not in defined]
    del graph.initializer[:], graph.node[:], graph.input[:]
    graph.node.extend(made + kept_nodes)
    graph.input.extend(inputs)
    return model


def nested_ifs(depth: int, width: int, seed: int) -> onnx.ModelProto:
    """`depth` nested `If`s over float[width] values; each branch holds a float[width, width] weight in
    a `Constant`, each else branch a `Loop` whose body adds a float[width] `Constant`."""
    rng = np.random.default_rng(seed)
    vec = [width]
    count = [0]

    def unique(what: str) -> str:  # a value's name, or (without the `/`) a graph's
        count[0] += 1
        return f"/{what}_{count[0]}"

    def then_branch(level: int) -> onnx.GraphProto:
        w, t, y = unique("w"), unique("t"), unique("y")
        nodes = [constant(w + "/Constant", w, weights(rng, [width, width], level % 2 == 0)),
                 h.make_node("MatMul", [w, "x"], [t], name=t + "/MatMul")]
        if level + 1 < depth:
            r = unique("r")
            nodes += [h.make_node("If", ["c"], [r], name=r + "/If", then_branch=then_branch(level + 1),
                                  else_branch=else_branch(level + 1)),
                      h.make_node("Add", [t, r], [y], name=y + "/Add")]
        else:
            nodes.append(h.make_node("Add", [t, t], [y], name=y + "/Add"))
        return h.make_graph(nodes, unique("then")[1:], [], [h.make_tensor_value_info(y, onnx.TensorProto.FLOAT, vec)])

    def else_branch(level: int) -> onnx.GraphProto:
        w, e, trips, y = unique("w"), unique("e"), unique("trips"), unique("y")
        acc, acc_out, cond_out, b = unique("acc"), unique("acc_out"), unique("cond_out"), unique("b")
        body = h.make_graph(
            [constant(b + "/Constant", b, weights(rng, vec, level % 2 == 1)),
             h.make_node("Add", [acc, b], [acc_out], name=acc_out + "/Add"),
             h.make_node("Identity", ["cond_in"], [cond_out], name=cond_out + "/Identity")],
            unique("body")[1:],
            [h.make_tensor_value_info("i", onnx.TensorProto.INT64, []),
             h.make_tensor_value_info("cond_in", onnx.TensorProto.BOOL, []),
             h.make_tensor_value_info(acc, onnx.TensorProto.FLOAT, vec)],
            [h.make_tensor_value_info(cond_out, onnx.TensorProto.BOOL, []),
             h.make_tensor_value_info(acc_out, onnx.TensorProto.FLOAT, vec)])
        nodes = [constant(w + "/Constant", w, weights(rng, [width, width], level % 2 == 1)),
                 h.make_node("MatMul", [w, "x"], [e], name=e + "/MatMul"),
                 constant(trips + "/Constant", trips, h.make_tensor("", onnx.TensorProto.INT64, [], [level + 1])),
                 h.make_node("Loop", [trips, "c", e], [y], name=y + "/Loop", body=body)]
        return h.make_graph(nodes, unique("else")[1:], [], [h.make_tensor_value_info(y, onnx.TensorProto.FLOAT, vec)])

    graph = h.make_graph(
        [h.make_node("If", ["c"], ["y"], name="/If", then_branch=then_branch(0), else_branch=else_branch(0))],
        "nested_ifs",
        [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, vec),
         h.make_tensor_value_info("c", onnx.TensorProto.BOOL, [])],
        [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, vec)])
    return h.make_model(graph, opset_imports=OPSET, producer_name="bench/gen.py")


def small_initializers(blocks: int, seed: int) -> onnx.ModelProto:
    """`blocks` Mul/Add pairs over float[64], each with a scale and a bias initializer of 1 or 64
    values, raw or typed; and beside each pair a small int64, int32, double or uint8 initializer
    (shapes, axes, zero points) that a `Reshape`, `Cast`... would read, left unread."""
    rng = np.random.default_rng(seed)
    others = [np.int64, np.int32, np.float64, np.uint8]
    inits, nodes, x = [], [], "input"
    for i in range(blocks):
        p = f"/blocks.{i}"
        for kind in ("scale", "bias"):
            values = (rng.standard_normal(int(rng.choice([1, 64]))) * 0.1).astype(np.float32)
            name = f"{p}.{kind}"
            inits.append(nh.from_array(values, name) if rng.integers(2) else
                         h.make_tensor(name, onnx.TensorProto.FLOAT, values.shape, values.tolist()))
        kind = others[i % len(others)]
        extra = rng.integers(0, 255, int(rng.integers(1, 9))).astype(kind)
        inits.append(nh.from_array(extra, f"{p}.extra") if rng.integers(2) else
                     h.make_tensor(f"{p}.extra", nh.helper.np_dtype_to_tensor_dtype(extra.dtype), extra.shape,
                                   extra.tolist()))
        nodes += [h.make_node("Mul", [x, f"{p}.scale"], [f"{p}/Mul_output_0"], name=f"{p}/Mul"),
                  h.make_node("Add", [f"{p}/Mul_output_0", f"{p}.bias"], [f"{p}/Add_output_0"], name=f"{p}/Add")]
        x = f"{p}/Add_output_0"
    nodes.append(h.make_node("Identity", [x], ["output"], name="/Identity"))
    graph = h.make_graph(nodes, "small_initializers",
                         [h.make_tensor_value_info("input", onnx.TensorProto.FLOAT, ["batch", 64])],
                         [h.make_tensor_value_info("output", onnx.TensorProto.FLOAT, ["batch", 64])], inits)
    return h.make_model(graph, opset_imports=OPSET, producer_name="bench/gen.py")


def exported(out: Path) -> list[tuple]:
    """The models shaped like exporters' (see the module doc), checked by onnx.checker."""
    light = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    models = [(f"constants-{stem}", "constants", constants(light / f"light_{stem}.onnx", seed),
               f"light_{stem}.onnx with its weights in Constant nodes")
              for seed, stem in enumerate(("squeezenet", "shufflenet", "densenet121"), start=3000)]
    models.append(("subgraphs", "subgraphs", nested_ifs(20, 128, seed=3100),
                   "20 nested If, weights in Constants of every branch and Loop body"))
    models.append(("initializers", "initializers", small_initializers(10_000, seed=3200),
                   "30,000 small initializers, 20,001 nodes"))
    cases = []
    for name, shape, model, what in models:
        onnx.checker.check_model(model, full_check=True)
        write_case(out, name, model)
        cases.append((name, shape, 1, "model", 1, what))
    return cases


def main() -> None:
    out = Path(sys.argv[1])
    quick = "--quick" in sys.argv
    with_corpus = "--no-corpus" not in sys.argv
    stamp = hashlib.sha256(Path(__file__).read_bytes()).hexdigest() + f" quick={quick} corpus={with_corpus}\n"
    if (out / "stamp").exists() and (out / "stamp").read_text() == stamp:
        print(f"bench/gen.py: inputs in {out} are up to date", file=sys.stderr)
        return
    out.mkdir(parents=True, exist_ok=True)
    (out / "stamp").unlink(missing_ok=True)
    for old in out.glob("*"):
        old.unlink()
    layers = 10 if not quick else 1            # x HIDDEN*(HIDDEN+1) parameters
    blocks = 1250 if not quick else 125        # x 10 nodes (+1)
    cases = []
    t0 = time.time()
    for mult in (1, 2, 4) if quick else (1, 2, 4, 8, 16):
        name = f"weights-{mult}N"
        write_case(out, name, weight_heavy(layers * mult, seed=1000 + mult))
        params = layers * mult * HIDDEN * (HIDDEN + 1)
        cases.append((name, "weights", mult, "model", 1, f"{params / 1e6:.2f}M float32 parameters in raw_data"))
        name = f"nodes-{mult}N"
        write_case(out, name, node_heavy(blocks * mult, seed=2000 + mult))
        cases.append((name, "nodes", mult, "model", 1, f"{blocks * mult * 10 + 1} nodes"))
    print(f"bench/gen.py: synthetic models written in {time.time() - t0:.1f}s", file=sys.stderr)
    if with_corpus:
        t0 = time.time()
        kept, dropped = corpus(out)
        cases.append(("corpus", "corpus", 1, "batch", kept, f"{kept} node test models"
                      + (f" ({dropped} the reference cannot round-trip left out)" if dropped else "")))
        (out / "corpus.dropped").write_text(f"{dropped}\n")
        print(f"bench/gen.py: corpus of {kept} models written ({dropped} the reference "
              f"cannot round-trip left out) in {time.time() - t0:.1f}s", file=sys.stderr)
    listings = [("cases.tsv", cases), ("real.tsv", real_models(out))]
    if not quick:
        t0 = time.time()
        listings.append(("exported.tsv", exported(out)))
        print(f"bench/gen.py: exported-like models written in {time.time() - t0:.1f}s", file=sys.stderr)
    for listing, rows in listings:
        with open(out / listing, "w") as f:
            for c in rows:
                f.write("\t".join(map(str, c)) + "\n")
    (out / "stamp").write_text(stamp)


if __name__ == "__main__":
    main()
