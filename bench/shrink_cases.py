"""`onnxtxt shrink` on failing models of several kinds: nodes before and
after, predicate runs, wall time, and whether onnx.checker (full_check)
accepts the result. Prints a Markdown table (bench/README.md has the
figures).

    .venv/bin/python bench/shrink_cases.py ONNXTXT [TRACT_REPRO]

The cases: a Softsign injected in the middle of the onnx wheel's
ResNet-50 (416 nodes); a Neg then Softsign in examples/control_flow's Loop
body and in its If's else branch; `smith` models (onnxruntime profile,
seeds 0, 17, 113) on which onnxruntime and the ReferenceEvaluator disagree
(fuzz/findings/ort_disagrees.py); with TRACT_REPRO (fuzz/findings/README.md),
the smith models of fuzz/findings/tract_seeds.txt that make tract panic.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def script(folder, name, body):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def cases(onnxtxt, tract_repro, folder):
    python = sys.executable
    grep = script(folder, "softsign.sh", f"'{onnxtxt}' print \"$1\" | grep -q Softsign")
    pair = script(folder, "neg_softsign.sh",
                  f"'{onnxtxt}' print \"$1\" | grep -A1 ' = Neg ' | grep -q ' = Softsign '")
    disagree = script(folder, "disagree.sh",
                      f"exec '{python}' '{ROOT}/fuzz/findings/ort_disagrees.py' \"$1\" 2>/dev/null")

    resnet = os.path.join(os.path.dirname(onnx.__file__),
                          "backend/test/data/light/light_resnet50.onnx")
    m = onnx.load(resnet)
    middle = len(m.graph.node) // 2
    value = m.graph.node[middle].output[0]
    m.graph.node[middle].output[0] = value + "_pre"
    m.graph.node.insert(middle + 1, helper.make_node("Softsign", [value + "_pre"], [value]))
    path = os.path.join(folder, "resnet50_softsign.onnx")
    onnx.save(m, path)
    yield "ResNet-50, a Softsign injected", grep, path, 1

    example = open(os.path.join(ROOT, "examples/control_flow.onnxtxt")).read()
    for inside, old, new in [
        ("Loop", "acc_out = Add (acc, scaled)",
         "neg = Neg (scaled)\n      soft = Softsign (neg)\n      acc_out = Add (acc, soft)"),
        ("If", "negated = Neg (total)", "flipped = Neg (total)\n      negated = Softsign (flipped)"),
    ]:
        path = os.path.join(folder, f"control_flow_{inside}.onnxtxt")
        with open(path, "w") as f:
            f.write(example.replace(old, new))
        yield f"control_flow, Neg then Softsign in the {inside}", pair, path, 2

    profile = os.path.join(ROOT, "fuzz/profiles/onnxruntime-1.32.0.json")
    for seed in [0, 17, 113]:
        path = os.path.join(folder, f"disagree_{seed}.onnx")
        subprocess.run([onnxtxt, "smith", "--config", profile, "--seed", str(seed),
                        "--binary", "-o", path], check=True)
        yield f"smith seed {seed}: onnxruntime and the evaluator disagree", disagree, path, None

    if tract_repro:
        with open(os.path.join(ROOT, "fuzz/findings/tract_seeds.txt")) as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                seed, message = line.split(maxsplit=1)
                path = os.path.join(folder, f"tract_{seed}.onnx")
                subprocess.run([onnxtxt, "smith", "--swarm", "--seed", seed, "--binary",
                                "-o", path], check=True)
                predicate = script(folder, f"tract_{seed}.sh",
                                   f"'{tract_repro}' \"$1\" 2>&1 | grep -qF '{message.strip()}'")
                yield f"smith --swarm seed {seed}: tract panics ({message.strip()})", predicate, path, None


def nodes(model):
    count = 0
    for n in model.graph.node:
        count += 1
        for a in n.attribute:
            if a.HasField("g"):
                count += len(a.g.node)
    return count


def main():
    onnxtxt = os.path.abspath(sys.argv[1])
    tract_repro = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
    times = []
    print("| case | nodes | smallest | runs | time (s) | full_check |")
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, predicate, path, smallest in cases(onnxtxt, tract_repro, folder):
            out = os.path.join(folder, "out.onnx")
            start = time.monotonic()
            run = subprocess.run([onnxtxt, "shrink", predicate, path, "-o", out],
                                 capture_output=True, text=True)
            elapsed = time.monotonic() - start
            if run.returncode != 0:
                print(f"| {name} | failed: {run.stderr.strip()} | | | | |")
                continue
            times.append(elapsed)
            summary = run.stderr.strip().splitlines()[-1]
            before_after = summary.split(": ", 1)[1].split(" nodes")[0]
            runs = summary.split(", ")[1].split()[0]
            try:
                onnx.checker.check_model(onnx.load(out), full_check=True)
                accepted = "accepts"
            except Exception as e:
                accepted = f"rejects: {e}"[:60]
            print(f"| {name} | {before_after} | {smallest or ''} | {runs} | {elapsed:.1f} | {accepted} |")
    print(f"\nmedian time {statistics.median(times):.1f} s over {len(times)} cases")


if __name__ == "__main__":
    main()
