"""Writes onnx's backend test cases, for tests/it/testcase_conformance.rs.

With onnx's own writer, `onnx.backend.test.cmd_tools.generate_data` (what
`python -m onnx.backend.test.cmd_tools generate-data -o DIR` runs), given
the node test cases as well as the model test cases it writes by default,
into DIR/generated; and the test data shipped in the onnx wheel into
DIR/shipped. DIR is the first argument, else $ONNXTXT_TESTCASES, else
target/testcases. Rewritten only when onnx's version or this script
changed (DIR/stamp). Prints how many case directories and data files it
holds.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import types

import onnx
import onnx.backend.test.cmd_tools as cmd_tools
from onnx.backend.test.case import model as model_test
from onnx.backend.test.case import node as node_test


def main() -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = (sys.argv[1:] or [os.environ.get("ONNXTXT_TESTCASES", "target/testcases")])[0]
    out = os.path.join(root, out)
    with open(__file__, "rb") as f:
        stamp = f"onnx {onnx.__version__} testcases.py {hashlib.sha256(f.read()).hexdigest()}"
    stamp_file = os.path.join(out, "stamp")
    if os.path.exists(stamp_file) and open(stamp_file).read() == stamp:
        print(f"test cases in {out} are up to date ({stamp})")
    else:
        if os.path.exists(out):
            shutil.rmtree(out)
        cases = node_test.collect_testcases(None) + model_test.collect_testcases()
        writer = types.SimpleNamespace(collect_testcases=lambda: cases)
        cmd_tools.model_test = writer
        cmd_tools.generate_data(argparse.Namespace(output=os.path.join(out, "generated")))
        shipped = os.path.join(os.path.dirname(cmd_tools.__file__), "data")
        for kind in sorted(os.listdir(shipped)):
            if os.path.isdir(os.path.join(shipped, kind)):
                shutil.copytree(os.path.join(shipped, kind), os.path.join(out, "shipped", kind))
        with open(stamp_file, "w") as f:
            f.write(stamp)
    cases = files = 0
    for _, _, names in os.walk(out):
        cases += "model.onnx" in names
        files += sum(name.endswith(".pb") for name in names)
    print(f"testcases: {cases} case directories, {files} data files in {out}")


if __name__ == "__main__":
    main()
