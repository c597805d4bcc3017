"""`onnxtxt shrink` on failing models of several kinds: nodes before and
after, predicate runs, wall time, and whether onnx.checker (full_check)
accepts the result. Prints a Markdown table (bench/README.md has the
figures).

    .venv/bin/python bench/shrink_cases.py ONNXTXT [TRACT_REPRO] [--polygraphy=POLYGRAPHY]

The cases: a Softsign injected in the middle of the onnx wheel's
ResNet-50 (416 nodes); a Neg then Softsign in examples/control_flow's Loop
body and in its If's else branch; `smith` models (onnxruntime profile,
seeds 0, 17, 113) on which onnxruntime and the ReferenceEvaluator disagree
(fuzz/findings/ort_disagrees.py); with TRACT_REPRO (fuzz/findings/README.md),
the smith models of fuzz/findings/tract_seeds.txt that make tract panic.
With --polygraphy (the `polygraphy` of a venv holding polygraphy,
onnx-graphsurgeon and onnxruntime from PyPI), `polygraphy debug reduce`
on the same cases, side by side.
"""

import collections
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
    """Nodes of the main graph and its subgraphs, to any depth."""
    def count(graph):
        return sum(1 + sum(count(a.g) for a in n.attribute if a.HasField("g"))
                   for n in graph.node)
    return count(model.graph)


def verdict(predicate, model_path):
    """Nodes, whether the predicate still holds and what full_check says."""
    model = onnx.load(model_path)
    still = subprocess.run([predicate, model_path]).returncode == 0
    try:
        onnx.checker.check_model(model, full_check=True)
        accepted = "yes"
    except Exception as e:
        accepted = "no: " + str(e).splitlines()[0][:50]
    return nodes(model), still, accepted


def with_onnxtxt(onnxtxt, predicate, path, folder):
    out = os.path.join(folder, "out.onnx")
    run = subprocess.run([onnxtxt, "shrink", predicate, path, "-o", out],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None
    return out


def with_polygraphy(polygraphy, onnxtxt, predicate, path, folder):
    """`polygraphy debug reduce`, its check the predicate inverted (it
    keeps the models whose check fails)."""
    if path.endswith(".onnxtxt"):
        binary = path[: -len(".onnxtxt")] + ".onnx"
        subprocess.run([onnxtxt, "parse", path, "-o", binary], check=True)
        path = binary
    out = os.path.join(folder, "polygraphy_out.onnx")
    check = f"! '{predicate}' polygraphy_debug.onnx"
    run = subprocess.run([polygraphy, "debug", "reduce", path, "-o", out,
                          "--check", "sh", "-c", check],
                         cwd=folder, capture_output=True, text=True)
    if run.returncode != 0 or not os.path.exists(out):
        return None
    return out


def main():
    onnxtxt = os.path.abspath(sys.argv[1])
    tract_repro = None
    polygraphy = None
    for arg in sys.argv[2:]:
        if arg.startswith("--polygraphy="):
            polygraphy = arg.split("=", 1)[1]
        else:
            tract_repro = os.path.abspath(arg)
    tools = [("onnxtxt shrink", lambda p, m, f: with_onnxtxt(onnxtxt, p, m, f))]
    if polygraphy:
        tools.append(("polygraphy debug reduce",
                      lambda p, m, f: with_polygraphy(polygraphy, onnxtxt, p, m, f)))
    times = collections.defaultdict(list)
    print("| case | tool | nodes | smallest | after | still fails | full_check | time (s) |")
    print("|---|---|---:|---:|---:|---|---|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for name, predicate, path, smallest in cases(onnxtxt, tract_repro, folder):
            binary = path
            if path.endswith(".onnxtxt"):
                binary = path[: -len(".onnxtxt")] + ".onnx"
                subprocess.run([onnxtxt, "parse", path, "-o", binary], check=True)
            before = nodes(onnx.load(binary))
            for tool, shrink in tools:
                start = time.monotonic()
                out = shrink(predicate, path, folder)
                elapsed = time.monotonic() - start
                if out is None:
                    print(f"| {name} | {tool} | {before} | {smallest or ''} | failed | | | {elapsed:.1f} |")
                    continue
                times[tool].append(elapsed)
                after, still, accepted = verdict(predicate, out)
                print(f"| {name} | {tool} | {before} | {smallest or ''} | {after} | "
                      f"{'yes' if still else 'no'} | {accepted} | {elapsed:.1f} |")
    for tool, spent in times.items():
        print(f"\n{tool}: median {statistics.median(spent):.1f} s over {len(spent)} cases")


if __name__ == "__main__":
    main()
