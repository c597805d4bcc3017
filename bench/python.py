"""onnxtxt's Python package against onnx.parser / onnx.printer, in one
process and run, on the inputs written by bench/gen.py.

Usage: python bench/python.py INPUT_DIR [--only CASE,CASE] [--reps N] [--secs S]

Run with a Python that has onnx and the onnxtxt wheel (built with
`maturin build --release`, see bench/README.md). Operations, as users call
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
for a core, which the CPU time leaves out). Writes a Markdown table, with
the CPU model and the load average, to stdout.
"""

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import onnx
import onnx.parser
import onnx.printer

import onnxtxt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import load_case, measure, options, timed_loop  # noqa: E402


def cpu_model() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def main() -> None:
    defaults = {"--reps": 10, "--secs": 2.0, "--only": "weights-4N,nodes-4N,corpus"}
    pos, opts = options(sys.argv[1:], defaults)
    d = Path(pos[0])
    only = set(opts["--only"].split(","))
    reps, secs = opts["--reps"], opts["--secs"]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    rows = []
    for line in (d / "cases.tsv").read_text().splitlines():
        name, _shape, _size, kind, _count, what = line.split("\t")[:6]
        if name not in only:
            continue
        texts, bins = load_case(d, name, kind)
        models = [onnx.ModelProto.FromString(b) for b in bins]
        operations = [
            ("parse", texts, onnxtxt.parse_model, onnx.parser.parse_model),
            ("print", models, onnxtxt.to_text, onnx.printer.to_text),
        ]
        for op, items, ours, reference in operations:
            ours_times = measure(timed_loop(ours, items, time.process_time), reps, secs)
            ref_times = measure(timed_loop(reference, items, time.process_time), reps, secs)
            rows.append((name, what, op, ours_times[1], ref_times[1], ours_times[3], ref_times[3]))
            print(f"{name} {op}: onnxtxt {ours_times[1]:.4f} s, reference {ref_times[1]:.4f} s", file=sys.stderr)
    print(f"CPU: {cpu_model()}; Python {platform.python_version()}, onnx {onnx.__version__}\n")
    print(f"Load average before: {load}; after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| input | operation | onnxtxt | onnx | speed-up | onnxtxt CPU | onnx CPU | speed-up (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, what, op, ours, ref, ours_cpu, ref_cpu in rows:
        print(
            f"| {name} ({what}) | {op} | {ours * 1e3:.1f} ms | {ref * 1e3:.1f} ms | {ref / ours:.1f}× "
            f"| {ours_cpu * 1e3:.1f} ms | {ref_cpu * 1e3:.1f} ms | {ref_cpu / ours_cpu:.1f}× |"
        )


if __name__ == "__main__":
    main()
