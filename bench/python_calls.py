"""What one call of the Python package costs on small models, part by part:
the corpus of node test models (bench/gen.py's `corpus`) and a one-node
model, in CPU time per call (best of up to 15 passes in 3 s, GC paused).

Usage: python bench/python_calls.py INPUT_DIR

Each line is one way of making the same result, so that the differences
are the parts: `parse_model` is `parse_model_bytes` (the extension's call:
the library's parse, the crossing, the `bytes`) then protobuf's
`ModelProto.FromString`; `to_text(ModelProto)` is protobuf's
`SerializeToString` then `to_text(bytes)`. The one-node model's calls are
mostly the fixed cost of a call. Run with a Python that has onnx and the
onnxtxt wheel, as bench/python.py.
"""

import os
import sys
import time
from pathlib import Path

# numpy (which onnx imports) would start OpenBLAS threads, whose spinning
# the process's CPU time would count.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import onnx  # noqa: E402
import onnx.parser  # noqa: E402
import onnx.printer  # noqa: E402

import onnxtxt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import load_case, measure, timed_loop  # noqa: E402

ONE_NODE = '<ir_version: 8, opset_import: ["": 18]> g (float x) => (float y) { y = Relu(x) }'
REPEATS = 2000


def cpu_per_call(call, items) -> float:
    """The best CPU time of ``call`` on each of ``items`` (bench/python.py's
    harness: the results kept until the pass ends), per call."""
    return measure(timed_loop(call, items, time.process_time), 15, 3.0)[3] / len(items)


def main() -> None:
    texts, bins = load_case(Path(sys.argv[1]), "corpus", "batch")
    models = [onnx.ModelProto.FromString(b) for b in bins]
    parsed = [onnxtxt.parse_model_bytes(text) for text in texts]
    one = onnxtxt.parse_model_bytes(ONE_NODE)
    rows = [
        ("corpus", "onnxtxt.parse_model (str -> ModelProto)", onnxtxt.parse_model, texts),
        ("corpus", "onnx.parser.parse_model", onnx.parser.parse_model, texts),
        ("corpus", "onnxtxt.parse_model_bytes", onnxtxt.parse_model_bytes, texts),
        ("corpus", "ModelProto.FromString", onnx.ModelProto.FromString, parsed),
        ("corpus", "onnxtxt.to_text(ModelProto)", onnxtxt.to_text, models),
        ("corpus", "onnx.printer.to_text", onnx.printer.to_text, models),
        ("corpus", "onnxtxt.to_text(bytes)", onnxtxt.to_text, bins),
        ("corpus", "ModelProto.SerializeToString", onnx.ModelProto.SerializeToString, models),
        ("one node", "onnxtxt.parse_model_bytes", onnxtxt.parse_model_bytes, [ONE_NODE] * REPEATS),
        ("one node", "onnx.parser.parse_model", onnx.parser.parse_model, [ONE_NODE] * REPEATS),
        ("one node", "onnxtxt.to_text(bytes)", onnxtxt.to_text, [one] * REPEATS),
        ("one node", "onnx.printer.to_text", onnx.printer.to_text, [onnx.ModelProto.FromString(one)] * REPEATS),
    ]
    print(f"Load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| input | call | CPU µs a call |")
    print("|---|---|---:|")
    for name, what, call, items in rows:
        print(f"| {name} | {what} | {cpu_per_call(call, items) * 1e6:.2f} |")


if __name__ == "__main__":
    main()
