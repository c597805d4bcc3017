"""Times the reference (onnx, Python) on the inputs written by bench/gen.py.

Usage: python bench/reference.py INPUT_DIR [OUT.tsv] [--only CASE] [--reps N] [--secs S]

Same operations and TSV columns as benches/throughput.rs: `parse` is
onnx.parser.parse_model(text), `print` is onnx.printer.to_text(model),
`decode` / `encode` are ModelProto.FromString / SerializeToString (Python
protobuf, for context). Each is called as users call it, on a str / a
ModelProto already in memory: only the call is timed, with the garbage
collector paused (as timeit does); best and median of at least 3 and at most
N (default 10) repetitions, stopping once S seconds (default 1) are spent,
in wall-clock time and in the thread's CPU time (time.thread_time).
`--only` times a single case (bench/run.sh times one case at a time, each
right after onnxtxt's).
"""

import gc
import struct
import sys
import time
from pathlib import Path

import onnx
import onnx.parser
import onnx.printer


def unframe(data: bytes) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        (n,) = struct.unpack_from("<I", data, i)
        out.append(data[i + 4 : i + 4 + n])
        i += 4 + n
    return out


def options(args: list[str], defaults: dict) -> tuple[list[str], dict]:
    """The positional arguments and the `--name value` options of `args`,
    each option of the type of its default."""
    opts, pos = dict(defaults), []
    args = list(args)
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = type(opts[a])(args.pop(0))
        else:
            pos.append(a)
    return pos, opts


def load_case(d: Path, name: str, kind: str) -> tuple[list[str], list[bytes]]:
    """The texts and binaries of one case of the inputs (a batch of them or
    one of each)."""
    if kind == "batch":
        texts = unframe((d / f"{name}.txt.batch").read_bytes())
        bins = unframe((d / f"{name}.onnx.batch").read_bytes())
    else:
        texts = [(d / f"{name}.txt").read_bytes()]
        bins = [(d / f"{name}.onnx").read_bytes()]
    return [t.decode("utf-8") for t in texts], bins


def measure(fn, max_reps: int, budget: float):
    wall, cpu = [], []
    start = time.perf_counter()
    while len(wall) < 3 or (len(wall) < max_reps and time.perf_counter() - start < budget):
        gc.collect()
        gc.disable()
        try:
            w, c = fn()
        finally:
            gc.enable()
        wall.append(w)
        cpu.append(c)
    wall.sort()
    cpu.sort()
    n = len(wall)
    return n, wall[0], wall[n // 2], cpu[0], cpu[n // 2]


def timed_loop(call, items, cpu_clock=time.thread_time):
    def run():
        out = []
        t, c = time.perf_counter(), cpu_clock()
        for x in items:
            out.append(call(x))
        e = time.perf_counter() - t, cpu_clock() - c
        del out  # freeing the results is not timed
        return e

    return run


def main() -> None:
    pos, opts = options(sys.argv[1:], {"--reps": 10, "--secs": 1.0, "--only": ""})
    d = Path(pos[0])
    out = open(pos[1], "w") if len(pos) > 1 else sys.stdout
    max_reps, budget = opts["--reps"], opts["--secs"]
    out.write("case\top\tbytes_in\tbytes_out\treps\tbest_s\tmedian_s\tbest_cpu_s\tmedian_cpu_s\tfailures\tfirst_error\n")
    for line in (d / "cases.tsv").read_text().splitlines():
        name, _shape, _size, kind = line.split("\t")[:4]
        if opts["--only"] and name != opts["--only"]:
            continue
        texts, bins = load_case(d, name, kind)
        models = [onnx.ModelProto.FromString(b) for b in bins]
        nbin = sum(map(len, bins))
        rows = []
        # parse: failures counted once, only the texts that parse are timed
        ok, fails, first = [], 0, ""
        for i, t in enumerate(texts):
            try:
                onnx.parser.parse_model(t)
                ok.append(t)
            except Exception as e:  # noqa: BLE001
                fails += 1
                first = first or f"model {i}: {e}".replace("\n", " ").replace("\t", " ")
        nout = sum(onnx.parser.parse_model(t).ByteSize() for t in ok)
        rows.append(("parse", sum(len(t.encode()) for t in ok), nout,
                     measure(timed_loop(onnx.parser.parse_model, ok), max_reps, budget), fails, first))
        nout = sum(len(onnx.printer.to_text(m).encode()) for m in models)
        rows.append(("print", nbin, nout,
                     measure(timed_loop(onnx.printer.to_text, models), max_reps, budget), 0, ""))
        rows.append(("decode", nbin, nbin,
                     measure(timed_loop(onnx.ModelProto.FromString, bins), max_reps, budget), 0, ""))
        rows.append(("encode", nbin, nbin,
                     measure(timed_loop(onnx.ModelProto.SerializeToString, models), max_reps, budget), 0, ""))
        for op, bin_, bout, (reps, best, med, best_c, med_c), fails, first in rows:
            out.write(f"{name}\t{op}\t{bin_}\t{bout}\t{reps}\t{best:.6f}\t{med:.6f}\t{best_c:.6f}\t{med_c:.6f}"
                      f"\t{fails}\t{first}\n")
            out.flush()
            print(f"reference: {name} {op}: best {best:.6f} s (CPU {best_c:.6f} s) over {reps} reps", file=sys.stderr)


if __name__ == "__main__":
    main()
