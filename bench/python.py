"""onnxtxt's Python package against onnx.parser / onnx.printer, in one
process and run, on the inputs written by bench/gen.py.

Usage: python bench/python.py INPUT_DIR [--only CASE,CASE] [--reps N] [--secs S] [--floor]

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

`--floor` writes, instead, the floor table in wall-clock time (what the
targets of issue 40 are stated in): for each case and direction, the parts
both sides pay and onnxtxt cannot remove, each timed alone in the same run
with the same protobuf backend (named in the header): protobuf's
(`ModelProto.FromString` of the parsed bytes, which onnx.parser.parse_model
does too; `SerializeToString` of the model to print, which
onnx.printer.to_text does too) and, for print, making the `str` from the
text's UTF-8 (`bytes.decode`, as both extensions make their result), with
onnxtxt's own part (`parse_model_bytes(text)`, `to_text(serialized)`). The
bound is onnx's time over the shared parts: the best speed-up reachable if
onnxtxt's own part cost nothing. Protobuf's part is timed twice: at its
fastest (a loop of it alone, on memory the last pass freed), and as a call
pays it (each model's `FromString` right after its `parse_model_bytes`,
each `SerializeToString` right before its `to_text`, only that step timed,
by the wall clock); on large models the two can differ by 4× (upb's arena
on fresh or reused memory). The verdict takes the bound with protobuf as a
call pays it.

Cases (`--only`, comma-separated; default: weights-4N, nodes-4N, corpus,
real, constants, exported; the files missing from INPUT_DIR are skipped):
  the names in INPUT_DIR/cases.tsv (weights-4N, nodes-4N, corpus, ...);
  real       the onnx wheel's light models (INPUT_DIR/real.tsv), as shipped;
  constants  the same models with every initializer turned into a `Constant`
             node holding it as it was stored (raw_data or typed fields), as
             exporters like Paddle's and spox write weights; made here
             (named light-constants-MODEL);
  exported   the exporter-shaped models of bench/gen.py (INPUT_DIR/exported.tsv:
             constants-squeezenet, subgraphs, initializers, ...), also by name.
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

import google.protobuf  # noqa: E402
import onnx  # noqa: E402
import onnx.helper  # noqa: E402
import onnx.parser  # noqa: E402
import onnx.printer  # noqa: E402
from google.protobuf.internal import api_implementation  # noqa: E402

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


def listed(d: Path, table: str) -> list[list[str]]:
    """The rows of INPUT_DIR's ``table`` (``cases.tsv``, ...), none if it is
    not there."""
    path = d / table
    return [line.split("\t") for line in path.read_text().splitlines()] if path.exists() else []


def cases(d: Path, only: set[str]):
    """(name, description, texts, serialized models) of each case asked for."""
    for name, _shape, _size, kind, _count, what in listed(d, "cases.tsv"):
        if name in only:
            texts, bins = load_case(d, name, kind)
            yield name, what, texts, bins
    for name, _shape, _size, kind, _count, what in listed(d, "exported.tsv"):
        if "exported" in only or name in only:
            texts, bins = load_case(d, name, kind)
            yield name, what, texts, bins
    real = listed(d, "real.tsv")
    for name, _shape, _size, kind, _count, what in real:
        texts, bins = load_case(d, name, kind)
        if "real" in only or name in only:
            yield name, what, texts, bins
        model = with_constants(onnx.ModelProto.FromString(bins[0]))
        text = onnx.printer.to_text(model)
        onnx.parser.parse_model(text)  # the reference must read its own text
        name = name.replace("real-", "light-constants-")
        if "constants" in only or name in only:
            yield name, f"the same, {len(model.graph.node)} nodes, weights in Constants", [text], [
                model.SerializeToString()
            ]


def main() -> None:
    floor = "--floor" in sys.argv
    defaults = {"--reps": 10, "--secs": 2.0, "--only": "weights-4N,nodes-4N,corpus,real,constants,exported"}
    pos, opts = options([a for a in sys.argv[1:] if a != "--floor"], defaults)
    d = Path(pos[0])
    only = set(opts["--only"].split(","))
    reps, secs = opts["--reps"], opts["--secs"]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rows = []
    for name, what, texts, bins in cases(d, only):
        models = [onnx.ModelProto.FromString(b) for b in bins]
        parsed = [onnxtxt.parse_model_bytes(text) for text in texts]
        # Each operation: its inputs, onnxtxt's call, onnx's, then protobuf's
        # part and onnxtxt's without it, each with its inputs, and (print)
        # the result's str made from its UTF-8.
        utf8 = [text.encode() for text in texts] if floor else []
        # The last: the steps of onnxtxt's call and which is protobuf's (for
        # its time as the call pays it).
        operations = [
            ("parse", texts, onnxtxt.parse_model, onnx.parser.parse_model,
             (onnx.ModelProto.FromString, parsed), (onnxtxt.parse_model_bytes, texts), None,
             ([onnxtxt.parse_model_bytes, onnx.ModelProto.FromString], 1)),
            ("print", models, onnxtxt.to_text, onnx.printer.to_text,
             (onnx.ModelProto.SerializeToString, models), (onnxtxt.to_text, bins), (bytes.decode, utf8),
             ([onnx.ModelProto.SerializeToString, onnxtxt.to_text], 0)),
        ]
        mb = sum(len(text) for text in texts) / 1e6
        nothing = (0, 0.0, 0.0, 0.0, 0.0)
        for op, items, ours, reference, proto, bare, text_made, (steps, timed) in operations:
            def time_of(call, given):
                return measure(timed_loop(call, given, time.process_time), reps, secs)

            ours_times, ref_times = time_of(ours, items), time_of(reference, items)
            proto_times, bare_times = time_of(*proto), time_of(*bare)
            str_times = time_of(*text_made) if floor and text_made else nothing
            in_call = measure(timed_step(steps, timed, items), reps, secs) if floor else nothing
            rows.append((name, what, mb, op, ours_times, ref_times, proto_times, bare_times, str_times, in_call))
            print(f"{name} {op}: onnxtxt {ours_times[1]:.4f} s, reference {ref_times[1]:.4f} s, "
                  f"protobuf {proto_times[1]:.4f} s", file=sys.stderr)
    print(f"CPU: {cpu_model()}; Python {platform.python_version()}, onnx {onnx.__version__}, "
          f"protobuf {google.protobuf.__version__} ({api_implementation.Type()} backend)\n")
    print(f"Load average before: {load}; after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    if floor:
        floor_table(rows)
        return
    print("| input | text MB | operation | onnxtxt | onnx | speed-up | onnxtxt CPU | onnx CPU "
          "| speed-up (CPU) | protobuf CPU | onnxtxt, bytes only, CPU | floor (CPU) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, what, mb, op, ours, ref, proto, bare, _, _ in rows:
        print(
            f"| {name} ({what}) | {mb:.2f} | {op} | {ms(ours[1])} | {ms(ref[1])} | {ref[1] / ours[1]:.1f}× "
            f"| {ms(ours[3])} | {ms(ref[3])} | {ref[3] / ours[3]:.1f}× | {ms(proto[3])} | {ms(bare[3])} "
            f"| {ref[3] / max(proto[3], 1e-6):.0f}× |"
        )


def timed_step(steps, timed: int, items):
    """A pass of ``steps`` on each of ``items``, each step given the last
    one's result, in which only step ``timed`` is timed (by the wall
    clock: a call of ``perf_counter`` is about 50 ns); the results are
    freed after the pass."""

    def run():
        out, wall = [], 0.0
        for x in items:
            for i, step in enumerate(steps):
                if i == timed:
                    t = time.perf_counter()
                    x = step(x)
                    wall += time.perf_counter() - t
                else:
                    x = step(x)
            out.append(x)
        del out
        return wall, wall

    return run


def floor_table(rows) -> None:
    """The `--floor` report: best wall-clock times, the shared parts, the
    bounds and issue 40's target (2× on the corpus, 4× on the others)."""
    print("| input | text MB | operation | onnx | onnxtxt | speed-up | onnxtxt's own part "
          "| protobuf, fastest | protobuf, in the call | str from UTF-8 | bound, fastest "
          "| bound, in the call | target |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, _what, mb, op, ours, ref, proto, bare, made, in_call in rows:
        target = 2 if name == "corpus" else 4
        fastest = ref[1] / max(proto[1] + made[1], 1e-9)
        paid = ref[1] / max(in_call[1] + made[1], 1e-9)
        verdict = f"{target}×: {'reachable' if paid >= target else '**impossible**'}"
        print(
            f"| {name} | {mb:.2f} | {op} | {ms(ref[1])} | {ms(ours[1])} | {ref[1] / ours[1]:.1f}× "
            f"| {ms(bare[1])} | {ms(proto[1])} | {ms(in_call[1])} | {ms(made[1]) if made[0] else '–'} "
            f"| {fastest:.1f}× | {paid:.1f}× | {verdict} |"
        )


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds >= 0.01 else f"{seconds * 1e3:.2f} ms"


if __name__ == "__main__":
    main()
