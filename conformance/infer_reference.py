"""Writes the reference's shape inference of every model of the corpus.

Run with the venv made by conformance/setup.sh, after conformance/generate.py.
For each model case of $ONNXTXT_CORPUS/manifest.tsv (default
target/conformance under the crate root), writes to $ONNXTXT_INFERENCE
(default target/inference under the crate root; relative paths are taken from
the crate root):

  <case>.inferred.onnx  onnx.shape_inference.infer_shapes(m, strict_mode=True,
                        data_prop=True) of the original, or
  <case>.inferred.err   its error, when strict inference fails
  <case>.checker.err    onnx.checker.check_model(m, full_check=True)'s error,
                        when the checker rejects the model (nothing when it
                        accepts it)
  <case>.stripped.onnx  the model without what it declares of its values'
                        types: the main graph's value_info and the types of
                        its outputs (subgraphs keep theirs, which their
                        operators need), so that inference starts from the
                        inputs alone
  <case>.stripped.inferred.onnx | .stripped.inferred.err
                        the reference's strict inference of that
  <case>.valued.onnx    for node test models: the stripped model with the
                        test's input values as initializers, so that
                        tests/it/infer_reference.rs can tell outputs whose
                        shapes depend on the inputs' values from those
                        their types determine

and `manifest.tsv` there: one line per model case, `name`, `inferred`,
`checker` and `stripped` (each `ok` or `error`). A `stamp` file records the
onnx version, this script's digest and the corpus's stamp; the folder is rewritten only when
they change (or with `--force`). tests/it/infer_reference.rs reads all this.

Function cases (schema function bodies) have no input types for the
reference to start from; they are compared through the node test models
that expand them (`*_expanded`), and skipped here.
"""

import hashlib
import os
import shutil
import sys
import time
import warnings
from pathlib import Path

import onnx
import onnx.checker
import onnx.shape_inference

CRATE = Path(__file__).resolve().parent.parent


def corpus_dir() -> Path:
    path = Path(os.environ.get("ONNXTXT_CORPUS", "target/conformance"))
    return path if path.is_absolute() else CRATE / path


def inference_dir() -> Path:
    path = Path(os.environ.get("ONNXTXT_INFERENCE", "target/inference"))
    return path if path.is_absolute() else CRATE / path


def stamp(corpus: Path) -> str:
    digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    corpus_stamp = (corpus / "stamp").read_text().strip() if (corpus / "stamp").exists() else "none"
    return f"onnx {onnx.__version__} infer_reference.py {digest} corpus {corpus_stamp}"


def first_line(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return " ".join(text.split())


def stripped(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model without its main graph's value_info and output types."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    del copy.graph.value_info[:]
    for output in copy.graph.output:
        output.ClearField("type")
    return copy


def infer(model: onnx.ModelProto, base: str) -> str:
    """Writes `base.inferred.onnx` or `base.inferred.err`; returns the status."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except Exception as error:  # noqa: BLE001 - any failure is data
        Path(f"{base}.inferred.err").write_text(first_line(error) + "\n")
        return "error"
    Path(f"{base}.inferred.onnx").write_bytes(inferred.SerializeToString(deterministic=True))
    return "ok"


def valued(model: onnx.ModelProto, inputs) -> onnx.ModelProto | None:
    """The model with the given input values as initializers (tensor
    inputs only), or None when there are none to give."""
    import numpy as np
    import onnx.numpy_helper

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    given = False
    for info, value in zip(list(copy.graph.input), inputs):
        if isinstance(value, np.generic):
            value = np.asarray(value)
        if not isinstance(value, np.ndarray) or not info.type.HasField("tensor_type"):
            continue
        try:
            tensor = onnx.numpy_helper.from_array(value, info.name)
        except Exception:  # noqa: BLE001 - a type numpy_helper cannot write
            continue
        copy.graph.initializer.append(tensor)
        given = True
    return copy if given else None


def node_inputs():
    """The first data set's inputs of every node test case, by case name."""
    from onnx.backend.test.case.node import collect_testcases

    return {f"node/{c.name}": c.data_sets[0][0] for c in collect_testcases(None) if c.data_sets}


def model_cases(corpus: Path):
    for line in (corpus / "manifest.tsv").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        name, kind, _status = line.split("\t")
        if kind == "model":
            yield name


def main() -> int:
    corpus = corpus_dir()
    out = inference_dir()
    force = "--force" in sys.argv[1:]
    if not force and (out / "stamp").exists() and (out / "stamp").read_text().strip() == stamp(corpus):
        print(f"reference inference in {out} is up to date")
        return 0
    start = time.monotonic()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    warnings.simplefilter("ignore")
    inputs = node_inputs()
    rows = []
    for name in model_cases(corpus):
        model = onnx.load_model(str(corpus / f"{name}.onnx"), load_external_data=False)
        base = out / name
        base.parent.mkdir(parents=True, exist_ok=True)
        inferred_status = infer(model, str(base))
        bare = stripped(model)
        Path(f"{base}.stripped.onnx").write_bytes(bare.SerializeToString(deterministic=True))
        stripped_status = infer(bare, f"{base}.stripped")
        if name in inputs:
            with_values = valued(bare, inputs[name])
            if with_values is not None:
                Path(f"{base}.valued.onnx").write_bytes(with_values.SerializeToString(deterministic=True))
        try:
            onnx.checker.check_model(model, full_check=True)
            checker_status = "ok"
        except Exception as error:  # noqa: BLE001
            Path(f"{base}.checker.err").write_text(first_line(error) + "\n")
            checker_status = "error"
        rows.append((name, inferred_status, checker_status, stripped_status))
    with open(out / "manifest.tsv", "w") as manifest:
        manifest.write("# name\tinferred\tchecker\tstripped\n")
        for row in rows:
            manifest.write("\t".join(row) + "\n")
    (out / "stamp").write_text(stamp(corpus) + "\n")
    failed = sum(1 for row in rows if row[1] != "ok")
    rejected = sum(1 for row in rows if row[2] != "ok")
    failed_stripped = sum(1 for row in rows if row[3] != "ok")
    print(
        f"reference inference: {len(rows)} models, strict inference failed on {failed} "
        f"({failed_stripped} stripped), checker rejected {rejected}, "
        f"in {time.monotonic() - start:.1f}s, to {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
