"""Two builds of the command against each other, file to file, alternating run by run.

Usage: python bench/ab.py BEFORE AFTER INPUT_DIR [--runs N] [--op OP ...] [--only CASE ...]

For every model of INPUT_DIR/exported.tsv (or each CASE given), and each
operation (by default `print CASE.onnx -o OUT` and `parse CASE.txt -o OUT`;
`--op` names others among print, parse, check and infer, the last two reading
CASE.txt and writing to standard output), runs BEFORE and AFTER N times each
(default 7), alternating which goes first, through bench/rusage.c as
bench/e2e.py does, and prints a Markdown table of the best CPU time (user +
system of the whole process) and best wall-clock time of each, and their ratio:
what a change between the two builds bought, measured in one run; then the
one-minute load average before and after.

A run fails the comparison when its exit status is 2 or more (a usage or I/O
error, or a crash) or differs from the other build's: `check` exits with 1 on
a model with findings, and both builds must agree on that.
"""

import os
import sys
import tempfile
from pathlib import Path

from e2e import build_launcher, run


# (operation, what it reads, what it writes: None for standard output)
OPERATIONS = (("print", ".onnx", ".txt"), ("parse", ".txt", ".onnx"), ("check", ".txt", None),
              ("infer", ".txt", None))


def main() -> None:
    args, runs, only = sys.argv[1:], 7, []
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    ops = []
    while "--op" in args:
        i = args.index("--op")
        chosen = [op for op in OPERATIONS if op[0] == args[i + 1]]
        if not chosen:
            sys.exit(f"--op {args[i + 1]}: one of {', '.join(op[0] for op in OPERATIONS)}")
        ops += chosen
        del args[i : i + 2]
    ops = ops or OPERATIONS[:2]
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
            best, statuses = {}, {}
            for round_ in range(runs):
                builds = [("before", before), ("after", after)]
                for name, exe in builds if round_ % 2 == 0 else builds[::-1]:
                    argv = [exe, op, str(inputs / f"{case}{ext}")]
                    if out_ext:
                        out = scratch / f"{name}{out_ext}"
                        out.unlink(missing_ok=True)
                        argv += ["-o", str(out)]
                    wall, cpu, _, status, _ = run(launcher, argv, scratch / f"{name}.stderr")
                    statuses[name] = status
                    if status >= 2 or len(set(statuses.values())) > 1:
                        sys.exit(f"{name} failed on {case} {op} (exit statuses {statuses}): "
                                 f"see {scratch / (name + '.stderr')}")
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
