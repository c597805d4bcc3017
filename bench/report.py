"""Turns the measurements of bench/run.sh into a Markdown report.

Usage: python bench/report.py INPUT_DIR RESULTS_DIR OUT.md [--clock cpu|wall] [--exported-only]

Two parts, each left out when its results are missing:

- End to end (RESULTS_DIR/e2e.tsv, written by bench/e2e.py): the `onnxtxt`
  command as a fresh process, file to file, against the reference called
  in-process from Python, with the peak memory of each.
- In-process (RESULTS_DIR/{onnxtxt,reference}.tsv, written by
  benches/throughput.rs and bench/reference.py): the library's calls alone,
  warm, against the reference's.

The tables use the best wall-clock time (--clock wall, the default: onnxtxt
reads and prints long lists on two threads, which CPU time would not show) or
the best CPU time (--clock cpu: far less disturbed by other work on a busy
machine); appendices give both. Also reads INPUT_DIR/cases.tsv and
INPUT_DIR/real.tsv (bench/gen.py) and RESULTS_DIR/machine.txt (bench/run.sh);
prints the report and writes it to OUT.md. With --exported-only, prints the
table of the exporter-shaped models (INPUT_DIR/exported.tsv) alone and writes
nothing.
"""

import csv
import math
import sys
from pathlib import Path

MB = 1e6

# The targets of the end-to-end run, for inputs of at least TARGET_MIN_BYTES:
# speed ratio at least, and peak RSS / (text + binary) at most, by shape.
TARGET_MIN_BYTES = 1_000_000
TARGETS = {"weights": (6.0, 1.2), "nodes": (4.0, 3.0), "real": (4.0, 3.0)}
# Issue 40's speed targets for the exporter-shaped models (bench/gen.py's exported.tsv), by shape:
# weight-heavy ones 6x, the others 4x, for texts of at least TARGET_MIN_BYTES.
EXPORTED_TARGETS = {"constants": 6.0, "subgraphs": 6.0, "initializers": 4.0}


def read_tsv(path: Path, key=("case", "op")) -> dict:
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return {tuple(r[k] for k in key): r for r in rows}


def read_cases(path: Path) -> list[list[str]]:
    return [l.split("\t") for l in path.read_text().splitlines()] if path.exists() else []


CLOCK = "best_s"


def secs(r, column=None) -> float:
    t = float(r[column or CLOCK]) if r else float("nan")
    return t if math.isfinite(t) else float("nan")


def fmt_s(t: float) -> str:
    if t != t:
        return "n/a"
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def fmt_rate(nbytes: int, t: float) -> str:
    return "n/a" if t != t or t == 0 else f"{nbytes / MB / t:.1f}"


def fmt_ratio(a: float, b: float) -> str:
    return "n/a" if a != a or b != b or b == 0 else f"{a / b:.2f}"


def label(m: int) -> str:
    return "N" if m == 1 else f"{m}N"


def scaling(w, cases, tables, ops) -> None:
    """Rows of t(2N)/t(N)... for each shape with every size, tool and op."""
    sizes = sorted({int(c[2]) for c in cases if c[1] in ("weights", "nodes")})
    steps = list(zip(sizes, sizes[1:]))
    w("| shape | operation | " + " | ".join(f"t({label(b)})/t({label(a)})" for a, b in steps) + " |")
    w("|---|---|" + "---:|" * len(steps))
    for shape in ("weights", "nodes"):
        by = {int(c[2]): c[0] for c in cases if c[1] == shape}
        if not set(sizes) <= by.keys() or len(sizes) < 2:
            continue
        for tool, get in tables:
            for op in ops:
                t = {m: secs(get(by[m], op)) for m in sizes}
                cells = [fmt_ratio(t[b], t[a]) for a, b in steps]
                w(f"| {shape} | {tool} {op} | " + " | ".join(cells) + " |")
    w("")


def end_to_end(w, cases, e2e, clock: str) -> None:
    def get(case, op, tool):
        return e2e.get((case, op, tool))

    w("## End to end: the command, file to file (what users run)")
    w("")
    w("`onnxtxt print CASE.onnx -o OUT` and `onnxtxt parse CASE.txt -o OUT` (release build),")
    w("a fresh process each run, timed from start to exit: start-up, reading the file,")
    w("the work, writing the output atomically (temporary file, `fsync`, rename), exit.")
    w("The reference is called in-process from Python, as a Python user calls it")
    w("(`bench/e2e_reference.py`: `onnx.load_model` + `onnx.printer.to_text` + write;")
    w("read + `onnx.parser.parse_model` + `SerializeToString` + write), in a fresh Python")
    w("process each run, timing the calls only: the interpreter's start-up and")
    w("`import onnx` are not counted against it (the column \"reference with start-up\"")
    w("is its whole process, best wall-clock time, and the ratio to onnxtxt's: what a")
    w("user running a Python script waits). Runs alternate between the two")
    w("(`bench/e2e.py`); " + ("best CPU time (user + system; onnxtxt's whole process, the"
                              " reference's process during its calls)."
                              if clock == "cpu" else "best wall-clock time of at least five runs each."))
    w("Peak RSS is the process's maximum resident set size over the runs (what")
    w("`/usr/bin/time -v` reports; each process is started by `bench/rusage.c`, so that")
    w("it is the process's own); the reference's includes the interpreter and the")
    w("onnx module (its RSS before the calls is in the appendix). RSS ratio = onnxtxt's")
    w("peak RSS / (text size + binary size), text being each printer's own output.")
    w(f"Targets, for inputs of at least {TARGET_MIN_BYTES / MB:g} MB: "
      + "; ".join(f"{shape} speed ≥ {s:g}×, RSS ratio ≤ {r:g}" for shape, (s, r) in TARGETS.items())
      + ".")
    w("")
    listed = [c for c in cases if c[3] == "model" and any(k[0] == c[0] for k in e2e)]
    for op, what in (("print", "binary in, text out"), ("parse", "text in, binary out")):
        w(f"### {op} ({what})")
        w("")
        w("| case | in MB | out MB | onnxtxt | reference | speed ratio | reference with start-up "
          "| onnxtxt peak RSS MB | RSS ratio | reference peak RSS MB | targets |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for c in listed:
            o, r = get(c[0], op, "onnxtxt"), get(c[0], op, "reference")
            if not o or not r:
                continue
            bin_in, bout = int(o["bytes_in"]), int(o["bytes_out"])
            to, tr = secs(o), secs(r)
            rss = int(o["peak_rss_kb"]) * 1024
            rss_ratio = rss / (bin_in + bout)
            target = ""
            if bin_in >= TARGET_MIN_BYTES and c[1] in TARGETS and to == to and tr == tr:
                speed_min, rss_max = TARGETS[c[1]]
                met = tr / to >= speed_min and rss_ratio <= rss_max
                target = f"{'met' if met else 'MISSED'} (≥ {speed_min:g}, ≤ {rss_max:g})"
            tr_process = secs(r, "best_process_s")
            w(f"| {c[0]} | {bin_in / MB:.2f} | {bout / MB:.2f} | {fmt_s(to)} | {fmt_s(tr)} "
              f"| {fmt_ratio(tr, to)} | {fmt_s(tr_process)} ({fmt_ratio(tr_process, to)}×) "
              f"| {rss / MB:.1f} | {rss_ratio:.2f} "
              f"| {int(r['peak_rss_kb']) * 1024 / MB:.1f} | {target} |")
        w("")
    w("### End-to-end scaling")
    w("")
    w("Ratio of best times when the input doubles: 2.00 is linear (onnxtxt's times")
    w("include its start-up, about a millisecond).")
    w("")
    scaling(w, cases, [(tool, lambda case, op, t=tool: get(case, op, t)) for tool in ("onnxtxt", "reference")],
            ("parse", "print"))
    w("### Appendix: end-to-end wall-clock and CPU times")
    w("")
    w("Best and median of the runs; the reference's RSS before its calls is the")
    w("interpreter with the onnx module loaded.")
    w("")
    w("| case | operation | runs | onnxtxt wall best / median | onnxtxt CPU best / median "
      "| reference wall best / median | reference CPU best / median | reference RSS before calls MB |")
    w("|---|---|---:|---:|---:|---:|---:|---:|")
    for c in listed:
        for op in ("print", "parse"):
            o, r = get(c[0], op, "onnxtxt"), get(c[0], op, "reference")
            if not o or not r:
                continue
            cells = [f"{fmt_s(secs(t, f'best{col}'))} / {fmt_s(secs(t, f'median{col}'))}"
                     for t in (o, r) for col in ("_s", "_cpu_s")]
            w(f"| {c[0]} | {op} | {o['runs']} | " + " | ".join(cells)
              + f" | {int(r['baseline_rss_kb']) * 1024 / MB:.1f} |")
    w("")


def in_process(w, cases, ox, ref, clock: str) -> None:
    w("## In-process: the library's calls (warm)")
    w("")
    w("onnxtxt is timed in-process (`benches/throughput.rs`, release build), the")
    w("reference (onnx 1.23.2) from Python as users call it (`bench/reference.py`); both")
    w("on the same inputs in the same run, one call at a time, best of several")
    w("repetitions in one process (its memory recycled), file I/O not timed.")
    if clock == "cpu":
        w("Times are the CPU time (user + system) of the best repetition: onnxtxt's whole")
        w("process (it reads and prints long lists on two threads), the reference's calling")
        w("thread; other processes disturb CPU time much less than wall-clock time, which")
        w("is in the appendix.")
    else:
        w("Times are wall-clock times of the best repetition (onnxtxt reads and prints")
        w("long lists on two threads); CPU times (onnxtxt's whole process, the reference's")
        w("calling thread) are in the appendix, with the load average to judge them by.")
    w("The reference calls include what Python users pay: `parse_model` returns a Python")
    w("`ModelProto` decoded from the C++ parser's bytes, `to_text` serializes the Python")
    w("`ModelProto` for the C++ printer.")
    w("")
    w("### Parse (text → IR)")
    w("")
    w("MB/s of input text.")
    w("")
    w("| case | text MB | onnxtxt | onnxtxt MB/s | reference | reference MB/s | speed ratio |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for c in cases:
        name = c[0]
        o, r = ox.get((name, "parse")), ref.get((name, "parse"))
        to, tr = secs(o), secs(r)
        w(f"| {name} | {int(r['bytes_in']) / MB:.2f} | {fmt_s(to)} | {fmt_rate(int(o['bytes_in']), to)} "
          f"| {fmt_s(tr)} | {fmt_rate(int(r['bytes_in']), tr)} | {fmt_ratio(tr, to)} |")
    w("")

    w("### Print (IR → text)")
    w("")
    w("MB/s of each printer's own output text (onnxtxt's canonical style differs from the")
    w("reference's layout: two-space indent, one attribute a line when long, `@<raw: true>`).")
    w("")
    w("| case | onnxtxt out MB | onnxtxt | onnxtxt MB/s | reference out MB | reference | reference MB/s | speed ratio |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|")
    for c in cases:
        name = c[0]
        o, r = ox.get((name, "print")), ref.get((name, "print"))
        to, tr = secs(o), secs(r)
        w(f"| {name} | {int(o['bytes_out']) / MB:.2f} | {fmt_s(to)} | {fmt_rate(int(o['bytes_out']), to)} "
          f"| {int(r['bytes_out']) / MB:.2f} | {fmt_s(tr)} | {fmt_rate(int(r['bytes_out']), tr)} | {fmt_ratio(tr, to)} |")
    w("")

    w("### Binary decode / encode, for context")
    w("")
    w("MB/s of the binary. onnxtxt's IR is prost; the reference column is Python protobuf")
    w("(`ModelProto.FromString` / `SerializeToString`).")
    w("")
    w("| case | binary MB | prost decode MB/s | prost encode MB/s | Python decode MB/s | Python encode MB/s |")
    w("|---|---:|---:|---:|---:|---:|")
    for c in cases:
        name = c[0]
        nb = int(ox[(name, "decode")]["bytes_in"])
        cells = [fmt_rate(nb, secs(t.get((name, op)))) for t in (ox, ref) for op in ("decode", "encode")]
        w(f"| {name} | {nb / MB:.2f} | " + " | ".join(cells) + " |")
    w("")

    w("### Inference and check, against parsing")
    w("")
    w("onnxtxt alone: `infer` is `onnxtxt::infer::infer_model` with its default options")
    w("(`onnxtxt infer`, `print --types`), `check` is `onnxtxt::check_model` (every pass,")
    w("inference with type constraints among them), each on the decoded IR, beside parsing")
    w("the same model's text. The target is inference no slower than parsing (ratio ≤ 1).")
    w("")
    w("| case | parse | infer | infer / parse | check | check / parse |")
    w("|---|---:|---:|---:|---:|---:|")
    for c in cases:
        name = c[0]
        tp, ti, tc = (secs(ox.get((name, op))) for op in ("parse", "infer", "check"))
        w(f"| {name} | {fmt_s(tp)} | {fmt_s(ti)} | {fmt_ratio(ti, tp)} | {fmt_s(tc)} | {fmt_ratio(tc, tp)} |")
    w("")

    w("### Scaling")
    w("")
    w("Ratio of best times when the input doubles: 2.00 is linear. In a full run, 4N is")
    w("the size the issue names (~10M parameters, ~50k nodes); below it, part of the")
    w("working set of node-heavy text still fits in the cache the VM gets")
    w("(bench/README.md, \"cold caches\").")
    w("")
    scaling(w, cases, [("onnxtxt", lambda case, op: ox.get((case, op))),
                       ("reference", lambda case, op: ref.get((case, op)))], ("parse", "print"))

    w("### Appendix: in-process wall-clock and CPU times")
    w("")
    w("Best repetition; wall / CPU well above 1 means the machine was busy.")
    w("")
    w("| case | operation | onnxtxt wall | onnxtxt CPU | reference wall | reference CPU |")
    w("|---|---|---:|---:|---:|---:|")
    for c in cases:
        for op in ("parse", "print", "decode", "encode"):
            o, r = ox.get((c[0], op)), ref.get((c[0], op))
            cells = [fmt_s(secs(t, col)) for t in (o, r) for col in ("best_s", "best_cpu_s")]
            w(f"| {c[0]} | {op} | " + " | ".join(cells) + " |")
    w("")


def failures(w, ox, ref, e2e) -> None:
    rows = [(f"onnxtxt {op}", case, r) for (case, op), r in ox.items()]
    rows += [(f"reference {op}", case, r) for (case, op), r in ref.items()]
    rows += [(f"{tool} {op} (end to end)", case, r) for (case, op, tool), r in e2e.items()]
    failed = [(what, case, r) for what, case, r in rows if int(r["failures"])]
    w("## Failures")
    w("")
    if not failed:
        w("None: onnxtxt parsed every reference text, and the reference every one of its own.")
    for what, case, r in failed:
        w(f"- {what} {case}: {r['failures']} failed, first: `{r['first_error'][:300]}`")
    w("")


def exported_models(w, inputs: Path, exported, e2e) -> None:
    """The table of the exporter-shaped models: both operations file to file, one row a model."""
    w("## Real models, file to file")
    w("")
    w("Models shaped like exporters' (issue 40; `bench/gen.py`, `exported.tsv`): weights in")
    w("named `Constant` nodes, raw and typed; weights in `Constant`s of nested `If` and `Loop`")
    w("bodies; many small initializers. Measured as in the end-to-end part (`bench/e2e.py`,")
    w("the command as a fresh process against the reference's calls, alternating).")
    w("Targets (issue 40), for texts of at least 1 MB: "
      + ", ".join(f"{shape} ≥ {ratio:g}×" for shape, ratio in EXPORTED_TARGETS.items()) + ".")
    w("")
    w("| model | contents | text MB | print onnxtxt | print reference | print ratio "
      "| parse onnxtxt | parse reference | parse ratio | target |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for c in exported:
        text_bytes = (inputs / f"{c[0]}.txt").stat().st_size
        cells, ratios = [], []
        for op in ("print", "parse"):
            o, r = e2e.get((c[0], op, "onnxtxt")), e2e.get((c[0], op, "reference"))
            to, tr = secs(o), secs(r)
            cells += [fmt_s(to), fmt_s(tr), fmt_ratio(tr, to)]
            ratios.append(tr / to if to == to and tr == tr and to else float("nan"))
        goal = EXPORTED_TARGETS.get(c[1])
        target = ""
        if goal and text_bytes >= TARGET_MIN_BYTES and all(x == x for x in ratios):
            target = f"{'met' if min(ratios) >= goal else 'MISSED'} (≥ {goal:g})"
        w(f"| {c[0]} | {c[5]} | {text_bytes / MB:.1f} | " + " | ".join(cells) + f" | {target} |")
    w("")


def main() -> None:
    global CLOCK
    args = sys.argv[1:]
    clock = "wall"
    if "--clock" in args:
        i = args.index("--clock")
        clock = args[i + 1]
        del args[i : i + 2]
    CLOCK = {"cpu": "best_cpu_s", "wall": "best_s"}[clock]
    inputs, results, out_md = Path(args[0]), Path(args[1]), Path(args[2])
    cases = read_cases(inputs / "cases.tsv")
    real = read_cases(inputs / "real.tsv")
    exported = read_cases(inputs / "exported.tsv")
    ox = read_tsv(results / "onnxtxt.tsv")
    ref = read_tsv(results / "reference.tsv")
    e2e = read_tsv(results / "e2e.tsv", ("case", "op", "tool"))
    if "--exported-only" in sys.argv:  # the one table, for a run of bench/e2e.py on exported.tsv alone
        L = []
        exported_models(L.append, inputs, exported, e2e)
        print("\n".join(L))
        return
    machine = (results / "machine.txt").read_text().strip()
    L = []
    w = L.append

    w("# onnxtxt throughput")
    w("")
    w("Made by `bash bench/run.sh`, in two parts measured in the same run on the same")
    w("inputs: **end to end**, the `onnxtxt` command as users run it (a fresh process,")
    w("file to file) against the reference called in-process from Python; and")
    w("**in-process**, the library's calls alone, warm, against the reference's.")
    w("Speed ratio = reference time / onnxtxt time (above 1: onnxtxt is faster).")
    w("MB = 10^6 bytes.")
    w("")
    w("## Machine")
    w("")
    for line in machine.splitlines():
        w(f"- {line}")
    w("")
    w("## Inputs")
    w("")
    w("Generated by `bench/gen.py` with fixed seeds. The text is the reference printer's")
    w("(`onnx.printer.to_text`) for both parsers. The real models are end to end only.")
    w("")
    w("| case | contents | text MB | binary MB |")
    w("|---|---|---:|---:|")
    for c in cases + real:
        text, binary = (inputs / f"{c[0]}.txt"), (inputs / f"{c[0]}.onnx")
        if c[3] == "batch":
            text, binary = (inputs / f"{c[0]}.txt.batch"), (inputs / f"{c[0]}.onnx.batch")
        size = lambda p: f"{p.stat().st_size / MB:.2f}" if p.exists() else "n/a"  # noqa: E731
        w(f"| {c[0]} | {c[5]} | {size(text)} | {size(binary)} |")
    w("")
    if e2e:
        end_to_end(w, cases + real, e2e, clock)
    if exported and e2e:
        exported_models(w, inputs, exported, e2e)
    if ox and ref:
        in_process(w, cases, ox, ref, clock)
    failures(w, ox, ref, e2e)

    report = "\n".join(L)
    out_md.write_text(report)
    print(report)


if __name__ == "__main__":
    main()
