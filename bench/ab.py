"""Two builds of the command against each other, file to file, alternating run by run.

Usage: python bench/ab.py BEFORE AFTER INPUT_DIR [--runs N] [--op print|parse] [--only CASE ...]

For every model of INPUT_DIR/exported.tsv (or each CASE given), both operations
(`print CASE.onnx -o OUT`, `parse CASE.txt -o OUT`; or the one --op names), runs BEFORE and AFTER N times
each (default 7), alternating which goes first, through bench/rusage.c as
bench/e2e.py does, and prints a Markdown table of the best CPU time (user +
system of the whole process) and best wall-clock time of each, and their ratio:
what a change between the two builds bought, measured in one run; then the
one-minute load average before and after. `--op` runs one of the two
operations only.
"""

import os
import sys
import tempfile
from pathlib import Path

from e2e import build_launcher, run


def main() -> None:
    args, runs, only = sys.argv[1:], 7, []
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    ops = (("print", ".onnx", ".txt"), ("parse", ".txt", ".onnx"))
    if "--op" in args:
        i = args.index("--op")
        ops = tuple(op for op in ops if op[0] == args[i + 1])
        del args[i : i + 2]
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1 :]
        del args[i:]
    before, after, inputs = args[0], args[1], Path(args[2])
    cases = only or [line.split("\t")[0] for line in (inputs / "exported.tsv").read_text().splitlines()]
    scratch = Path(tempfile.mkdtemp(prefix="ab-scratch-", dir=inputs.parent))
    launcher = build_launcher(scratch)
    load_before = os.getloadavg()[0]
    print("| model | operation | CPU before | CPU after | CPU ratio | wall before | wall after | wall ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for case in cases:
        for op, ext, out_ext in ops:
            best = {}
            for round_ in range(runs):
                builds = [("before", before), ("after", after)]
                for name, exe in builds if round_ % 2 == 0 else builds[::-1]:
                    out = scratch / f"{name}{out_ext}"
                    out.unlink(missing_ok=True)
                    wall, cpu, _, status, _ = run(launcher, [exe, op, str(inputs / f"{case}{ext}"), "-o", str(out)],
                                                  scratch / f"{name}.stderr")
                    if status != 0:
                        sys.exit(f"{name} failed on {case} {op}: see {scratch / (name + '.stderr')}")
                    w, c = best.get(name, (wall, cpu))
                    best[name] = (min(w, wall), min(c, cpu))
            (wb, cb), (wa, ca) = best["before"], best["after"]
            print(f"| {case} | {op} | {cb * 1e3:.1f} ms | {ca * 1e3:.1f} ms | {cb / ca:.2f} "
                  f"| {wb * 1e3:.1f} ms | {wa * 1e3:.1f} ms | {wb / wa:.2f} |", flush=True)
    print(f"\nload average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    for path in scratch.iterdir():
        path.unlink()
    scratch.rmdir()


if __name__ == "__main__":
    main()
