"""End to end: the `onnxtxt` command as users run it, against the reference.

Usage: python bench/e2e.py ONNXTXT INPUT_DIR OUT.tsv [--only CASE] [--runs MIN MAX] [--secs S]

For every model of INPUT_DIR/cases.tsv (the weight-heavy and node-heavy
inputs; not the corpus batch), of INPUT_DIR/real.tsv (the models that
ship in the onnx wheel) and of INPUT_DIR/exported.tsv (the models shaped like
exporters'), both operations, file to file:

  print   onnxtxt print CASE.onnx -o OUT.txt   against bench/e2e_reference.py print
  parse   onnxtxt parse CASE.txt -o OUT.onnx   against bench/e2e_reference.py parse

onnxtxt runs as a fresh process each time, timed from start to exit (its
start-up, reading, work, writing and `fsync`, and exit); the reference is
called in-process from Python and only its calls are timed (loading, work,
writing: not the interpreter's start-up or `import onnx`), in a fresh
Python process each time too. Runs alternate between the two (onnxtxt
first in odd rounds, the reference first in even ones), at least MIN and at
most MAX rounds (default 5 and 20), stopping once S seconds (default 3)
are spent on a case and operation. Outputs go to a scratch directory beside
INPUT_DIR (on the same file system) and are deleted before every run, so that
neither side replaces a file.

Writes one TSV line per case, operation and tool: bytes in and out, rounds,
best and median wall-clock seconds, best and median CPU seconds (onnxtxt:
user + system of the whole process, from `wait4`; the reference: its
process's CPU time during the calls), best and median wall-clock seconds of
the whole process (for the reference: with the interpreter's start-up and
`import onnx`, what a user who runs a Python script waits), the peak resident set size over the
runs (`ru_maxrss`, what `/usr/bin/time -v` reports), and for the reference
its peak before the calls (the interpreter and `import onnx`).

Each process is started by `bench/rusage.c` (built here with `cc`), which
forks it and reports its `wait4` figures: a process that Python spawned
itself would report Python's own RSS (10 to 15 MB) as its peak when it uses
less, since Linux keeps the peak of the memory a process had before it
execs (see rusage.c).
"""

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLUMNS = ("case", "shape", "size", "op", "tool", "bytes_in", "bytes_out", "runs", "best_s", "median_s",
           "best_cpu_s", "median_cpu_s", "best_process_s", "median_process_s", "peak_rss_kb",
           "baseline_rss_kb", "failures", "first_error")


def build_launcher(scratch: Path) -> Path:
    """bench/rusage.c, compiled into `scratch`."""
    launcher = scratch / "rusage"
    subprocess.run(["cc", "-O2", "-o", str(launcher), str(HERE / "rusage.c")], check=True)
    return launcher


def run(launcher: Path, argv: list[str], err_path: Path) -> tuple[float, float, int, int, str]:
    """Runs `argv` to its end through `launcher`: wall seconds, CPU seconds, peak RSS (kB), exit
    status, stdout."""
    usage_path = err_path.with_suffix(".usage")
    with open(err_path, "wb") as err:
        done = subprocess.run([str(launcher), str(usage_path), *argv], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=err)
    if done.returncode != 0 and not usage_path.exists():
        return float("nan"), float("nan"), 0, done.returncode, done.stdout.decode()
    wall, user, system, rss = usage_path.read_text().split()
    usage_path.unlink()
    return float(wall), float(user) + float(system), int(rss), done.returncode, done.stdout.decode()


class Side:
    """The runs of one tool on one case and operation."""

    def __init__(self, tool: str):
        self.tool, self.wall, self.cpu, self.rss, self.baseline = tool, [], [], [], 0
        self.process = []  # whole-process wall-clock seconds, start-up included
        self.failures, self.first_error, self.bytes_out = 0, "", 0

    def once(self, launcher: Path, argv: list[str], dst: Path, scratch: Path) -> None:
        dst.unlink(missing_ok=True)
        err = scratch / f"{self.tool}.stderr"
        wall, cpu, rss, status, out = run(launcher, argv, err)
        if status != 0:
            self.failures += 1
            message = err.read_text(errors="replace").strip().replace("\n", " ").replace("\t", " ")
            self.first_error = self.first_error or f"exit {status}: {message[:300]}"
            return
        self.process.append(wall)
        if self.tool == "reference":
            inner = json.loads(out)
            wall, cpu, self.baseline = inner["wall_s"], inner["cpu_s"], inner["baseline_kb"]
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.rss.append(rss)
        self.bytes_out = dst.stat().st_size

    def row(self, case: list[str], op: str, bytes_in: int) -> str:
        def stat(xs, f):
            return f"{f(xs):.6f}" if xs else "nan"

        cells = [*case[:3], op, self.tool, bytes_in, self.bytes_out, len(self.wall),
                 stat(self.wall, min), stat(self.wall, statistics.median),
                 stat(self.cpu, min), stat(self.cpu, statistics.median),
                 stat(self.process, min), stat(self.process, statistics.median),
                 max(self.rss, default=0), self.baseline, self.failures, self.first_error]
        return "\t".join(map(str, cells)) + "\n"


def measure(cli: str, src: Path, op: str, scratch: Path, launcher: Path, runs: tuple[int, int],
            secs: float):
    """Alternating runs of onnxtxt and the reference on `src`."""
    ext = ".txt" if op == "print" else ".onnx"
    ox_dst, ref_dst = scratch / f"onnxtxt{ext}", scratch / f"reference{ext}"
    ox, ref = Side("onnxtxt"), Side("reference")
    ox_argv = [cli, op, str(src), "-o", str(ox_dst)]
    ref_argv = [sys.executable, str(HERE / "e2e_reference.py"), op, str(src), str(ref_dst)]
    start, rounds = time.perf_counter(), 0
    while rounds < runs[0] or (rounds < runs[1] and time.perf_counter() - start < secs):
        pair = [(ox, ox_argv, ox_dst), (ref, ref_argv, ref_dst)]
        for side, argv, dst in pair if rounds % 2 == 0 else pair[::-1]:
            side.once(launcher, argv, dst, scratch)
        rounds += 1
        if ox.failures or ref.failures:
            break
    return ox, ref


def main() -> None:
    args, opts = sys.argv[1:], {"--only": "", "--secs": 3.0}
    runs, pos = (5, 20), []
    while args:
        a = args.pop(0)
        if a == "--runs":
            runs = (int(args.pop(0)), int(args.pop(0)))
        elif a in opts:
            opts[a] = type(opts[a])(args.pop(0))
        else:
            pos.append(a)
    cli, inputs, out_tsv = pos[0], Path(pos[1]), Path(pos[2])
    scratch = Path(tempfile.mkdtemp(prefix="e2e-scratch-", dir=inputs.parent))
    launcher = build_launcher(scratch)
    cases = [line.split("\t") for name in ("cases.tsv", "real.tsv", "exported.tsv") if (inputs / name).exists()
             for line in (inputs / name).read_text().splitlines()]
    with open(out_tsv, "w") as out:
        out.write("\t".join(COLUMNS) + "\n")
        for case in cases:
            if case[3] != "model" or (opts["--only"] and case[0] != opts["--only"]):
                continue
            for op, ext in (("print", ".onnx"), ("parse", ".txt")):
                src = inputs / f"{case[0]}{ext}"
                ox, ref = measure(cli, src, op, scratch, launcher, runs, opts["--secs"])
                for side in (ox, ref):
                    out.write(side.row(case, op, src.stat().st_size))
                out.flush()
                best = lambda s: f"{min(s.wall):.4f} s" if s.wall else "failed"  # noqa: E731
                print(f"end to end: {case[0]} {op}: onnxtxt {best(ox)}, reference {best(ref)} "
                      f"({len(ox.wall)} rounds)", file=sys.stderr)
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
