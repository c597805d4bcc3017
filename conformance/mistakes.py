"""A sample of mistakes people make writing small models, and what
`onnxtxt check` and onnxruntime each say of them: one markdown table row
per mistake (check's first finding, onnxruntime's verdict on the model
onnxtxt parses, from runtime_verdict.py).

Usage: mistakes.py ONNXTXT_BINARY
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from runtime_verdict import verdict

HEADER = '<ir_version: 10, opset_import: ["": 21]>\n'

MLP = """g (float[1, 3] x) => (float[1, 4] y) <float[3, 4] w = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0}, float[4] b = {0.0, 0.0, 0.0, 0.0}> {
  h = MatMul(x, w)
  z = Add(h, b)
  y = Relu(z)
}
"""

CONV = """g (float[1, 3, 8, 8] x, float[6, 3, 3, 3] w) => (float[1, 6, ?, ?] y) {
  y = Conv <KERNEL> (x, w)
}
"""

FUNCTION = """g (float[2] x, float[2] s) => (float[2] y) {
  y = my.CALL
}
<domain: "my", opset_import: ["": 21]>
Scale (x, s) => (r) {
  r = Mul(x, s)
}
"""


def mlp(old, new):
    return HEADER + MLP.replace(old, new, 1)


def conv(attributes):
    return HEADER + CONV.replace("KERNEL", attributes)


def call(text):
    return HEADER.replace('21]', '21, "my": 1]') + FUNCTION.replace("CALL", text)


# (what the mistake is, the model with it)
MISTAKES = [
    ("a weight matrix with a value missing", mlp("11.0, 12.0}", "11.0}")),
    ("a bias with one value too many", mlp("{0.0, 0.0, 0.0, 0.0}", "{0.0, 0.0, 0.0, 0.0, 0.0}")),
    ("MatMul with the weights transposed", mlp("float[3, 4] w", "float[4, 3] w")),
    ("Relu spelt relu", mlp("Relu(z)", "relu(z)")),
    ("Add given one input", mlp("Add(h, b)", "Add(h)")),
    ("an output that is never assigned", mlp("y = Relu(z)", "r = Relu(z)")),
    ("a value used before it is made", mlp("  h = MatMul(x, w)\n  z = Add(h, b)", "  z = Add(h, b)\n  h = MatMul(x, w)")),
    ("Softmax with an axis out of range", mlp("y = Relu(z)", "y = Softmax <axis: int = 2> (z)")),
    ("Gelu at an opset before it existed", mlp("y = Relu(z)", "y = Gelu(z)").replace('"": 21', '"": 18')),
    ("an int8 constant out of range", HEADER + "g (int8[2] x) => (int8[2] y) <int8[2] c = {100, 300}> {\n  y = Add(x, c)\n}\n"),
    ("a graph input without a shape", HEADER + "g (float[] x) => (float[2] y) {\n  y = Relu(x)\n}\n"),
    ("Conv: kernel_shape that is not the weights'", conv("kernel_shape: ints = [5, 5]")),
    ("Conv: group that does not divide the channels", conv("group: int = 3")),
    ("Conv: strides for one axis of two", conv("strides: ints = [2]")),
    ("Conv: pads for one side only", conv("pads: ints = [1, 1]")),
    ("a local function called with an input too many", call("Scale(x, s, s)")),
    ("a local function called without an input it needs", call("Scale(x)")),
    ("a local function misspelt", call("Scael(x, s)")),
    ("ReduceMean with axes as an attribute at opset 18", HEADER.replace("21", "18") + "g (float[2, 3] x) => (float[2, 1] y) {\n  y = ReduceMean <axes: ints = [1]> (x)\n}\n"),
    ("an opset from the future", HEADER.replace("21", "30") + "g (float[2] x) => (float[2] y) {\n  y = Relu(x)\n}\n"),
]


def first_finding(onnxtxt, path):
    """check's first error, else its first warning, else `nothing`."""
    run = subprocess.run([onnxtxt, "check", str(path)], capture_output=True, text=True,
                         env={"NO_COLOR": "1"})
    found = []
    for line in run.stderr.splitlines():
        if line.startswith("[onnxtxt::"):
            code, _, rest = line.partition("] ")
            level, _, message = rest.partition(": ")
            where = message.split(": ", 1)[-1]
            found.append((level != "Error", f"{level.lower()} `{code.split('::')[-1]}`: {where}"))
    if found:
        return min(found)[1]
    return "nothing" if run.returncode == 0 else run.stderr.strip().splitlines()[0]


def short(message):
    """onnxruntime's message without its status code and source location."""
    message = message.splitlines()[0]
    message = re.sub(r"^(load|run): \[ONNXRuntimeError\] : \d+ : \w+ : ", "", message)
    message = re.sub(r"\S*onnxruntime_src\S* [^)]*\)+ ", "", message)
    for noise in ("Exception during initialization: ", "This is an invalid model. ", "Fatal error: "):
        message = message.replace(noise, "")
    return message.split("Status Message: ")[-1]


def main():
    onnxtxt = sys.argv[1]
    print("| mistake | onnxtxt check | onnxruntime |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (mistake, text) in enumerate(MISTAKES):
            source = Path(tmp) / f"m{i}.onnxtxt"
            binary = source.with_suffix(".onnx")
            source.write_text(text)
            ours = first_finding(onnxtxt, source)
            parsed = subprocess.run([onnxtxt, "parse", str(source), "-o", str(binary)], capture_output=True)
            if parsed.returncode != 0:
                theirs = "(does not parse)"
            else:
                message = verdict(binary.read_bytes())
                theirs = "runs it" if message is None else short(message)[:120]
            print(f"| {mistake} | {ours.replace('|', '/')[:110]} | {theirs.replace('|', '/')} |")


if __name__ == "__main__":
    main()
