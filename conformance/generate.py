"""Writes the conformance corpus: what the reference (onnx, PyPI) prints and parses.

Run with the venv made by conformance/setup.sh. The corpus goes to
$ONNXTXT_CORPUS (default: target/conformance under the crate root; a relative
path is taken from the crate root) and is wiped and rewritten on every run:

  onnx.proto              the reference's schema, copied from the package
  manifest.tsv            one line per case: name, kind, status
  <case>.onnx | <case>.pb the original binary (a ModelProto | a FunctionProto)
  <case>.txt              the reference printer's text of it
  <case>.ref.pb           the reference parser's result for that text, or
  <case>.ref.err          its error, when it cannot parse its own output

Cases, in sorted order within each group:
  node/<test case name>                          onnx.backend.test node models
  function/<domain>/<op>-<since_version>         schema function bodies
  function/<domain>/<op>-<since_version>.opset<N> ... for other opset versions
  wheel/<path under onnx/backend/test/data>      the .onnx files in the wheel
  extra/<name>                                   a few models built here, for
                                                 what the above never contains

Status is "ok" (a .ref.pb was written), "reference-parse-error" (.ref.err
holds the parser's message) or "reference-print-error" (.ref.err holds the
printer's message and there is no .txt). tests/it/conformance.rs reads all this.
"""

import os
import shutil
import sys
import time
import warnings
from pathlib import Path

import onnx
import onnx.defs
import onnx.parser
import onnx.printer

CRATE = Path(__file__).resolve().parent.parent


def corpus_dir() -> Path:
    path = Path(os.environ.get("ONNXTXT_CORPUS", "target/conformance"))
    return path if path.is_absolute() else CRATE / path


def node_cases():
    """The backend node test models, by test case name."""
    # Building the cases computes expected outputs with numpy, which warns
    # about intentional overflows and infinities; that noise is not ours.
    warnings.simplefilter("ignore", RuntimeWarning)
    from onnx.backend.test.case.node import collect_testcases

    for case in sorted(collect_testcases(None), key=lambda c: c.name):
        yield f"node/{case.name}", "model", case.model


def function_cases():
    """Every FunctionProto body that a schema (any version) defines."""
    schemas = sorted(
        (s for s in onnx.defs.get_all_schemas_with_history() if s.has_function),
        key=lambda s: (s.domain, s.name, s.since_version),
    )
    for schema in schemas:
        stem = f"function/{schema.domain or 'ai.onnx'}/{schema.name}-{schema.since_version}"
        main = schema.function_body
        yield stem, "function", main
        # A schema may carry other bodies for other opset versions.
        for version in sorted(schema.function_opset_versions):
            body = onnx.FunctionProto.FromString(schema.get_function_with_opset_version(version))
            if body != main:
                yield f"{stem}.opset{version}", "function", body


def wheel_cases():
    """Every .onnx file shipped under onnx/backend/test/data."""
    data = Path(onnx.__file__).parent / "backend" / "test" / "data"
    for path in sorted(data.rglob("*.onnx")):
        rel = path.relative_to(data).with_suffix("").as_posix()
        yield f"wheel/{rel}", "model", onnx.load_model(str(path), load_external_data=False)


def extra_cases():
    """Models for syntax that the reference's own cases never use."""
    from onnx import TensorProto, helper

    def value(name):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, [2])

    # Attributes whose values are lists of tensors, graphs and types. The
    # reference parser drops the list items (a known reference defect).
    tensor = helper.make_tensor("t", TensorProto.FLOAT, [2], [1.0, 2.0])
    body = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [value("x")], [value("y")])
    node = helper.make_node(
        "Custom", ["x"], ["y"], domain="test.lists",
        ts=[tensor, tensor], gs=[body], tp=[helper.make_tensor_type_proto(TensorProto.FLOAT, [2])],
    )
    graph = helper.make_graph([node], "attribute_lists", [value("x")], [value("y")])
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("test.lists", 1)]
    yield "extra/attribute_lists", "model", helper.make_model(graph, opset_imports=opsets)


def write_case(out: Path, name: str, kind: str, proto) -> str:
    """Writes one case's files and returns its status."""
    base = out / name
    base.parent.mkdir(parents=True, exist_ok=True)
    binary = ".onnx" if kind == "model" else ".pb"
    Path(f"{base}{binary}").write_bytes(proto.SerializeToString(deterministic=True))
    try:
        text = onnx.printer.to_text(proto)
    except Exception as err:  # noqa: BLE001 - any printer failure is data
        Path(f"{base}.ref.err").write_text(f"printer: {type(err).__name__}: {err}\n")
        return "reference-print-error"
    Path(f"{base}.txt").write_text(text)
    parse = onnx.parser.parse_model if kind == "model" else onnx.parser.parse_function
    try:
        parsed = parse(text)
    except Exception as err:  # noqa: BLE001 - onnx.parser.ParseError, mostly
        message = str(err).strip() or type(err).__name__
        Path(f"{base}.ref.err").write_text(f"parser: {message}\n")
        return "reference-parse-error"
    Path(f"{base}.ref.pb").write_bytes(parsed.SerializeToString(deterministic=True))
    return "ok"


def main() -> int:
    start = time.monotonic()
    out = corpus_dir()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copyfile(Path(onnx.__file__).parent / "onnx.proto", out / "onnx.proto")

    rows = []
    for group in (node_cases, function_cases, wheel_cases, extra_cases):
        for name, kind, proto in group():
            rows.append((name, kind, write_case(out, name, kind, proto)))
    names = [name for name, _, _ in rows]
    assert len(set(names)) == len(names), "case names must be unique"

    with open(out / "manifest.tsv", "w") as manifest:
        manifest.write("# name\tkind\tstatus\n")
        for row in rows:
            manifest.write("\t".join(row) + "\n")

    counts = {}
    for name, _, status in rows:
        key = (name.split("/", 1)[0], status)
        counts[key] = counts.get(key, 0) + 1
    summary = ", ".join(f"{group} {status}: {n}" for (group, status), n in sorted(counts.items()))
    print(f"onnx {onnx.__version__}: {len(rows)} cases in {out} ({summary}) "
          f"in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
