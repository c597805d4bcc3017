"""How many lines `git diff` shows for one small edit of a real model.

For each model, each edit of a fixed set is applied to the binary with the
onnx package (rename a node, rename a value, change an attribute, change
one weight, insert a node), both versions are printed by each `onnxtxt`
given, and `git diff --no-index -U0` of the two texts is counted: lines
removed plus lines added. For the renamed value, the lines that use the
value (hold its old or new name) are counted apart: they must change; the
rest is reflow noise. Writes a Markdown table of the median and worst
count per edit and binary.

    python bench/diff_noise.py --onnxtxt before=/tmp/onnxtxt-main \\
        --onnxtxt after=target/release/onnxtxt MODEL.onnx...

With no model, the real models of the conformance corpus
($ONNXTXT_CORPUS, default target/conformance): the wheel's model zoo
samples and PyTorch exports that have initializers.
"""

import argparse
import copy
import glob
import os
import statistics
import subprocess
import sys
import tempfile

import onnx
from onnx import helper, numpy_helper


def middle_node(graph, accept):
    """The node nearest the middle of the graph for which `accept` holds."""
    order = sorted(range(len(graph.node)), key=lambda i: abs(i - len(graph.node) // 2))
    return next((graph.node[i] for i in order if accept(graph.node[i])), None)


def rename_node(model):
    node = middle_node(model.graph, lambda n: n.name)
    if node is None:
        return None
    node.name = "renamed_node"
    return {}


def rename_value(model):
    node = middle_node(model.graph, lambda n: n.output and n.output[0])
    if node is None:
        return None
    old = node.output[0]
    new = "renamed_value"
    g = model.graph
    for n in g.node:
        n.input[:] = [new if x == old else x for x in n.input]
        n.output[:] = [new if x == old else x for x in n.output]
    for vi in list(g.output) + list(g.value_info):
        if vi.name == old:
            vi.name = new
    return {"old": old, "new": new}


def change_attribute(model):
    def numeric(a):
        return a.type in (onnx.AttributeProto.INT, onnx.AttributeProto.INTS,
                          onnx.AttributeProto.FLOAT)

    node = middle_node(model.graph, lambda n: any(numeric(a) for a in n.attribute))
    if node is None:
        return None
    a = next(a for a in node.attribute if numeric(a))
    if a.type == onnx.AttributeProto.INT:
        a.i += 1
    elif a.type == onnx.AttributeProto.FLOAT:
        a.f = a.f * 2 + 1
    elif a.ints:
        a.ints[0] += 1
    else:
        a.ints.append(1)
    return {}


def change_weight(model):
    floats = [t for t in model.graph.initializer
              if t.data_type == onnx.TensorProto.FLOAT and numpy_helper.to_array(t).size > 16]
    if not floats:
        return None
    tensor = max(floats, key=lambda t: numpy_helper.to_array(t).size)
    values = numpy_helper.to_array(tensor).copy()
    flat = values.reshape(-1)
    flat[flat.size // 2] = 0.0 if flat[flat.size // 2] != 0 else 1.0
    raw = tensor.HasField("raw_data")
    new = numpy_helper.from_array(values, tensor.name)
    if not raw:
        new.ClearField("raw_data")
        new.float_data[:] = flat.tolist()
    tensor.CopyFrom(new)
    return {}


def insert_node(model):
    g = model.graph
    node = middle_node(g, lambda n: n.output and n.output[0])
    if node is None:
        return None
    at = list(g.node).index(node) + 1
    g.node.insert(at, helper.make_node("Identity", [node.output[0]], ["inserted_copy"],
                                       name="inserted"))
    return {}


EDITS = [
    ("rename a node", rename_node),
    ("rename a value", rename_value),
    ("change an attribute", change_attribute),
    ("change one weight", change_weight),
    ("insert a node", insert_node),
]


def printed(onnxtxt, path):
    return subprocess.run([onnxtxt, "print", path], check=True, capture_output=True,
                          text=True).stdout


def changed_lines(old_text, new_text, info, work):
    """(changed lines, of which uses of a renamed value) of git's diff."""
    a, b = os.path.join(work, "a.txt"), os.path.join(work, "b.txt")
    with open(a, "w") as f:
        f.write(old_text)
    with open(b, "w") as f:
        f.write(new_text)
    diff = subprocess.run(["git", "diff", "--no-index", "--no-color", "-U0", a, b],
                          capture_output=True, text=True).stdout
    changed = uses = 0
    for line in diff.splitlines():
        if line.startswith(("---", "+++")) or not line[:1] in ("-", "+"):
            continue
        changed += 1
        name = info.get("old") if line[0] == "-" else info.get("new")
        if name and name in line:
            uses += 1
    return changed, uses


def default_models():
    corpus = os.environ.get("ONNXTXT_CORPUS", "target/conformance")
    models = sorted(glob.glob(os.path.join(corpus, "wheel/light/*.onnx")))
    for path in sorted(glob.glob(os.path.join(corpus, "wheel/pytorch-converted/*/model.onnx"))):
        if len(onnx.load(path).graph.initializer) >= 2:
            models.append(path)
    return models


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--onnxtxt", action="append", required=True, metavar="LABEL=PATH")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    binaries = [tuple(b.split("=", 1)) for b in args.onnxtxt]
    models = args.models or default_models()
    counts = {(edit, label): [] for edit, _ in EDITS for label, _ in binaries}
    with tempfile.TemporaryDirectory() as work:
        for path in models:
            original = onnx.load(path)
            old_path = os.path.join(work, "old.onnx")
            onnx.save(original, old_path)
            for edit, apply in EDITS:
                model = copy.deepcopy(original)
                info = apply(model)
                if info is None:
                    continue
                new_path = os.path.join(work, "new.onnx")
                onnx.save(model, new_path)
                for label, onnxtxt in binaries:
                    changed, uses = changed_lines(printed(onnxtxt, old_path),
                                                  printed(onnxtxt, new_path), info, work)
                    counts[(edit, label)].append((changed - uses, uses, path))
    print(f"{len(models)} models; changed lines in `git diff` (removed + added)"
          " for one edit, median / worst (worst model)")
    print()
    print("| edit | models | " + " | ".join(label for label, _ in binaries) + " |")
    print("|---|---:|" + "---|" * len(binaries))
    for edit, _ in EDITS:
        cells = []
        for label, _ in binaries:
            rows = counts[(edit, label)]
            noise = [r[0] for r in rows]
            worst = max(rows)
            cell = f"{statistics.median(noise):g} / {worst[0]} ({os.path.basename(os.path.dirname(worst[2])) if worst[2].endswith('model.onnx') else os.path.basename(worst[2])})"
            if edit == "rename a value":
                cell += f", plus {statistics.median([r[1] for r in rows]):g} uses (median)"
            cells.append(cell)
        print(f"| {edit} | {len(counts[(edit, binaries[0][0])])} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
