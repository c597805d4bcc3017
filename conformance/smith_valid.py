"""Valid models from `onnxtxt smith`, judged by the reference.

Usage: smith_valid.py ONNXTXT [--count N] [--first-seed S] [--swarm]

Writes the models of seeds S .. S+N-1 (`onnxtxt smith --seed K --binary`),
then for each: onnx.checker.check_model(m, full_check=True) must accept it
and `onnxtxt check` must give no error. Reports the accepted share, the
share of the registry's operators (ai.onnx, latest versions, deprecated
ones left out) that appear in some model, the operators that never do, and
the share of models that onnx.reference.ReferenceEvaluator runs on random
inputs of the declared shapes (with the operators of the ones that fail).
Exits non-zero on any checker rejection or `check` error; coverage and
runnability are reported, not enforced.
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnx.defs
import onnx.reference


def generate(onnxtxt, seed, path, swarm):
    command = [onnxtxt, "smith", "--seed", str(seed), "--binary", "-o", path]
    if swarm:
        command.append("--swarm")
    subprocess.run(command, check=True)


def operators(graph, found):
    for node in graph.node:
        found[(node.domain, node.op_type)] += 1
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                operators(attribute.g, found)


def random_input(value, rng):
    tensor = value.type.tensor_type
    shape = [d.dim_value if d.HasField("dim_value") else 2 for d in tensor.shape.dim]
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(1, 5, size=shape).astype(dtype)
    return rng.standard_normal(size=shape).astype(dtype)


def runs(model, rng):
    """None when the reference evaluator runs the model, else its error."""
    try:
        session = onnx.reference.ReferenceEvaluator(model)
        initializers = {t.name for t in model.graph.initializer}
        feeds = {
            v.name: random_input(v, rng)
            for v in model.graph.input
            if v.name not in initializers
        }
        with np.errstate(all="ignore"):
            session.run(None, feeds)
        return None
    except Exception as error:  # noqa: BLE001 - any failure is a finding
        return f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("onnxtxt")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--swarm", action="store_true")
    args = parser.parse_args()

    rejected, check_errors, found = [], [], collections.Counter()
    run_failures = collections.Counter()
    ran = 0
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.first_seed, args.first_seed + args.count):
            path = os.path.join(tmp, f"smith{seed}.onnx")
            generate(args.onnxtxt, seed, path, args.swarm)
            model = onnx.load(path)
            try:
                onnx.checker.check_model(model, full_check=True)
            except Exception as error:  # noqa: BLE001
                rejected.append((seed, str(error).splitlines()[0][:300]))
                continue
            check = subprocess.run(
                [args.onnxtxt, "check", path], capture_output=True, text=True
            )
            if check.returncode != 0:
                check_errors.append((seed, check.stderr.strip()[:300]))
            operators(model.graph, found)
            failure = runs(model, rng)
            if failure is None:
                ran += 1
            else:
                ops = sorted({n.op_type for n in model.graph.node})
                run_failures[(failure, ",".join(ops))] += 1

    registry = {
        s.name
        for s in onnx.defs.get_all_schemas()
        if s.domain == "" and not s.deprecated
    }
    covered = {name for (domain, name) in found if domain == "" and name in registry}
    accepted = args.count - len(rejected)
    mode = "swarm" if args.swarm else "default config"
    print(f"smith({mode}): {args.count} models, seeds {args.first_seed}..{args.first_seed + args.count - 1}")
    print(f"smith: onnx.checker (full_check) accepted {accepted}/{args.count} ({100 * accepted / args.count:.1f}%)")
    for seed, error in rejected[:20]:
        print(f"  rejected seed {seed}: {error}")
    print(f"smith: onnxtxt check errors on {len(check_errors)} accepted models")
    for seed, error in check_errors[:20]:
        print(f"  check error seed {seed}: {error}")
    print(
        f"smith: operator coverage {len(covered)}/{len(registry)} "
        f"({100 * len(covered) / len(registry):.1f}%) of ai.onnx's latest non-deprecated operators"
    )
    print(f"smith: never generated: {' '.join(sorted(registry - covered))}")
    if accepted:
        print(f"smith: ReferenceEvaluator ran {ran}/{accepted} ({100 * ran / accepted:.1f}%)")
    for (failure, ops), n in run_failures.most_common(15):
        print(f"  {n} x {failure} [{ops}]")
    sys.exit(1 if rejected or check_errors else 0)


if __name__ == "__main__":
    main()
