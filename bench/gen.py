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
    for listing, rows in (("cases.tsv", cases), ("real.tsv", real_models(out))):
        with open(out / listing, "w") as f:
            for c in rows:
                f.write("\t".join(map(str, c)) + "\n")
    (out / "stamp").write_text(stamp)


if __name__ == "__main__":
    main()
