"""onnxtxt's Python package against onnx.parser / onnx.printer, in one
process and run, on the inputs written by bench/gen.py.

Usage: python bench/python.py INPUT_DIR [--only CASE,CASE] [--reps N] [--secs S]

Run with a Python that has onnx and the onnxtxt wheel (`pip install
./python`, a release build, see bench/README.md). Operations, as users call
them:
  parse  onnxtxt.parse_model(text) against onnx.parser.parse_model(text):
         str in, onnx.ModelProto out (the bytes crossing over and
         ModelProto.FromString counted);
  print  onnxtxt.to_text(model) against onnx.printer.to_text(model):
         onnx.ModelProto in (SerializeToString counted), str out.
Both sides are timed one after the other on each case, with bench/reference.py's
harness (best of 3 to N repetitions within S seconds, GC paused), in
wall-clock time and in the CPU time of the whole process (onnxtxt reads and
prints long inputs on two threads; on a busy machine their hand-overs wait
for a core, which the CPU time leaves out).

What is left when onnxtxt's own work is done is Python protobuf's, which
both sides pay: ModelProto.FromString of the parsed bytes, SerializeToString
of the model to print. Each row times it alone ("protobuf"), and onnxtxt
without it ("bytes only": parse_model_bytes(text), to_text(serialized)).
The floor is the speed-up onnxtxt would have if its own work took no time:
onnx's CPU time / protobuf's.

Cases (`--only`, comma-separated; default: weights-4N, nodes-4N, corpus, real, constants):
  the names in INPUT_DIR/cases.tsv (weights-4N, nodes-4N, corpus, ...);
  real       the onnx wheel's light models (INPUT_DIR/real.tsv), as shipped;
  constants  the same models with every initializer turned into a `Constant`
             node holding it as it was stored (raw_data or typed fields), as
             exporters like Paddle's and spox write weights; made here.
Writes a Markdown table, with the CPU model and the load average, to stdout.
"""

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

# numpy (which onnx imports) would start OpenBLAS threads, whose spinning
# the process's CPU time would count against both sides.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import onnx  # noqa: E402
import onnx.helper  # noqa: E402
import onnx.parser  # noqa: E402
import onnx.printer  # noqa: E402

import onnxtxt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import load_case, measure, options, timed_loop  # noqa: E402


def cpu_model() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def with_constants(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with each initializer of its graph a `Constant` node
    before the others, its tensor kept as stored; an initializer also
    listed as a graph input is no longer one."""
    converted = onnx.ModelProto()
    converted.CopyFrom(model)
    graph = converted.graph
    names = {tensor.name for tensor in graph.initializer}
    constants = [
        onnx.helper.make_node("Constant", [], [tensor.name], name=f"{tensor.name}_Constant", value=tensor)
        for tensor in graph.initializer
    ]
    for node in constants:
        node.attribute[0].t.ClearField("name")
    nodes = constants + list(graph.node)
    inputs = [value for value in graph.input if value.name not in names]
    del graph.node[:], graph.input[:], graph.initializer[:]
    graph.node.extend(nodes)
    graph.input.extend(inputs)
    return converted


def cases(d: Path, only: set[str]):
    """(name, description, texts, serialized models) of each case asked for."""
    listed = [line.split("\t") for line in (d / "cases.tsv").read_text().splitlines()]
    real = [line.split("\t") for line in (d / "real.tsv").read_text().splitlines()]
    for name, _shape, _size, kind, _count, what in listed:
        if name in only:
            texts, bins = load_case(d, name, kind)
            yield name, what, texts, bins
    for name, _shape, _size, kind, _count, what in real:
        texts, bins = load_case(d, name, kind)
        if "real" in only or name in only:
            yield name, what, texts, bins
        model = with_constants(onnx.ModelProto.FromString(bins[0]))
        text = onnx.printer.to_text(model)
        onnx.parser.parse_model(text)  # the reference must read its own text
        name = name.replace("real-", "constants-")
        if "constants" in only or name in only:
            yield name, f"the same, {len(model.graph.node)} nodes, weights in Constants", [text], [
                model.SerializeToString()
            ]


def main() -> None:
    defaults = {"--reps": 10, "--secs": 2.0, "--only": "weights-4N,nodes-4N,corpus,real,constants"}
    pos, opts = options(sys.argv[1:], defaults)
    d = Path(pos[0])
    only = set(opts["--only"].split(","))
    reps, secs = opts["--reps"], opts["--secs"]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rows = []
    for name, what, texts, bins in cases(d, only):
        models = [onnx.ModelProto.FromString(b) for b in bins]
        parsed = [onnxtxt.parse_model_bytes(text) for text in texts]
        # Each operation: its inputs, onnxtxt's call, onnx's, then protobuf's
        # part and onnxtxt's without it, each with its inputs.
        operations = [
            ("parse", texts, onnxtxt.parse_model, onnx.parser.parse_model,
             (onnx.ModelProto.FromString, parsed), (onnxtxt.parse_model_bytes, texts)),
            ("print", models, onnxtxt.to_text, onnx.printer.to_text,
             (onnx.ModelProto.SerializeToString, models), (onnxtxt.to_text, bins)),
        ]
        mb = sum(len(text) for text in texts) / 1e6
        for op, items, ours, reference, proto, bare in operations:
            def time_of(call, given):
                return measure(timed_loop(call, given, time.process_time), reps, secs)

            ours_times, ref_times = time_of(ours, items), time_of(reference, items)
            proto_times, bare_times = time_of(*proto), time_of(*bare)
            rows.append((name, what, mb, op, ours_times, ref_times, proto_times, bare_times))
            print(f"{name} {op}: onnxtxt {ours_times[1]:.4f} s, reference {ref_times[1]:.4f} s, "
                  f"protobuf {proto_times[1]:.4f} s", file=sys.stderr)
    print(f"CPU: {cpu_model()}; Python {platform.python_version()}, onnx {onnx.__version__}\n")
    print(f"Load average before: {load}; after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| input | text MB | operation | onnxtxt | onnx | speed-up | onnxtxt CPU | onnx CPU "
          "| speed-up (CPU) | protobuf CPU | onnxtxt, bytes only, CPU | floor (CPU) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, what, mb, op, ours, ref, proto, bare in rows:
        print(
            f"| {name} ({what}) | {mb:.2f} | {op} | {ms(ours[1])} | {ms(ref[1])} | {ref[1] / ours[1]:.1f}× "
            f"| {ms(ours[3])} | {ms(ref[3])} | {ref[3] / ours[3]:.1f}× | {ms(proto[3])} | {ms(bare[3])} "
            f"| {ref[3] / max(proto[3], 1e-6):.0f}× |"
        )


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds >= 0.01 else f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
