"""No false alarms: `onnxtxt check` gives no error where onnx.checker and
onnxruntime both accept.

Usage: checker_agreement.py ONNXTXT_BINARY DIR...
       checker_agreement.py ONNXTXT_BINARY --corpus CORPUS

For every `.onnxtxt` file in the DIRs (the diagnostics suite: one mistake
per file) that onnxtxt parses, asks the reference
(`onnx.checker.check_model(m, full_check=True)` on the binary onnxtxt
writes) and `onnxtxt check` for their verdicts, and fails if onnxtxt reports
an error on a model the reference accepts and onnxruntime loads and runs
(runtime_verdict.py): an error is what the spec forbids, which onnx.checker
does not always see, so where it accepts, onnxruntime's refusal is the
evidence (each such model is listed with the runtime's message, to be
read for the reason). Where the reference rejects a
model that onnxtxt passes (with warnings or nothing), the case is listed: a
mistake onnxtxt does not catch yet, not a failure. Prints one line of
counts, `checker-agreement: ...`.

With --corpus, does the same for the conformance corpus (generate.py): every
model, and every schema function body (made a model-local function of a
model that imports what the function imports). Each model the reference
accepts is checked as binary and as the text `onnxtxt print` writes; one
error on either is a false alarm unless onnxruntime refuses the model.
Prints `checker-agreement(corpus): ...`.
"""

import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import onnx
import onnx.checker
from onnx import helper

from runtime_verdict import verdict as runtime_verdict

# How many files one `onnxtxt check` run is given (the command line stays
# well under the system's limit).
FILES_PER_RUN = 400


def reference_verdict(model: onnx.ModelProto) -> str | None:
    """None if onnx.checker accepts the model, else its message."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as error:  # the checker raises several kinds
        return str(error).splitlines()[0]
    return None


def suite(onnxtxt: str, dirs: list[str]) -> int:
    files = sorted(f for d in dirs for f in Path(d).glob("*.onnxtxt"))
    counts = {
        "syntax": 0,
        "both reject": 0,
        "both accept": 0,
        "missed": 0,
        "onnxruntime refuses": 0,
        "false alarm": 0,
    }
    with tempfile.TemporaryDirectory() as tmp:
        for file in files:
            binary = Path(tmp) / (file.stem + ".onnx")
            parse = subprocess.run([onnxtxt, "parse", str(file), "-o", str(binary)], capture_output=True)
            if parse.returncode != 0:
                counts["syntax"] += 1
                continue
            reference = reference_verdict(onnx.load(str(binary)))
            ours = subprocess.run([onnxtxt, "check", str(file)], capture_output=True, text=True)
            if ours.returncode not in (0, 1):
                print(f"{file}: onnxtxt check exited {ours.returncode}\n{ours.stderr}")
                return 1
            flagged = ours.returncode == 1
            runtime = runtime_verdict(binary.read_bytes()) if flagged and reference is None else None
            if flagged and reference is None and runtime is None:
                counts["false alarm"] += 1
                print(f"FALSE ALARM {file.name}: onnx.checker and onnxruntime accept it, "
                      f"onnxtxt check says\n{ours.stderr}")
            elif flagged and reference is None:
                counts["onnxruntime refuses"] += 1
                print(f"onnxruntime refuses {file.name}: {runtime.splitlines()[0][:160]}")
            elif not flagged and reference is not None:
                counts["missed"] += 1
                print(f"missed {file.name}: onnx.checker says {reference}")
            else:
                counts["both reject" if flagged else "both accept"] += 1
    print("checker-agreement: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 1 if counts["false alarm"] else 0


def errors_by_file(onnxtxt: str, files: list[Path]) -> dict[str, list[dict]]:
    """Runs `onnxtxt check --error-format json` over `files`; each file's
    errors (JSON diagnostics), by the file name onnxtxt gives."""
    found: dict[str, list[dict]] = {str(f): [] for f in files}
    for start in range(0, len(files), FILES_PER_RUN):
        batch = [str(f) for f in files[start:start + FILES_PER_RUN]]
        run = subprocess.run(
            [onnxtxt, "--error-format", "json", "check", *batch], capture_output=True, text=True
        )
        if run.returncode not in (0, 1):
            sys.exit(f"onnxtxt check exited {run.returncode}\n{run.stderr}")
        for line in run.stderr.splitlines():
            diagnostic = json.loads(line)
            if diagnostic.get("level") == "error" and "file" in diagnostic:
                found.setdefault(diagnostic["file"], []).append(diagnostic)
    return found


def function_model(function: onnx.FunctionProto) -> onnx.ModelProto:
    """A model whose graph is one Identity and whose one local function is
    `function`: the model imports what the function imports (the same
    versions, as the checker requires), its domain, and the default domain."""
    imports = {o.domain: o.version for o in function.opset_import}
    imports.setdefault(function.domain, 1)
    imports.setdefault("", onnx.defs.onnx_opset_version())
    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "calls_nothing",
        [value("x", onnx.TensorProto.FLOAT, [1])],
        [value("y", onnx.TensorProto.FLOAT, [1])],
    )
    opsets = [helper.make_opsetid(d, v) for d, v in sorted(imports.items())]
    return helper.make_model(graph, opset_imports=opsets, functions=[function], ir_version=10)


def corpus_models(corpus: Path):
    """Every model of the corpus, with its case name."""
    for line in (corpus / "manifest.tsv").read_text().splitlines()[1:]:
        name, kind, _status = line.split("\t")
        if kind == "model":
            yield name, onnx.load(str(corpus / f"{name}.onnx"), load_external_data=False)
        else:
            function = onnx.FunctionProto.FromString((corpus / f"{name}.pb").read_bytes())
            yield name, function_model(function)


def corpus(onnxtxt: str, corpus_dir: Path) -> int:
    accepted, rejected = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, model in corpus_models(corpus_dir):
            verdict = reference_verdict(model)
            binary = Path(tmp) / (name.replace("/", "__") + ".onnx")
            binary.write_bytes(model.SerializeToString())
            text = binary.with_suffix(".onnxtxt")
            printed = subprocess.run([onnxtxt, "print", str(binary), "-o", str(text)], capture_output=True)
            if printed.returncode != 0:
                sys.exit(f"{name}: onnxtxt print failed\n{printed.stderr.decode()}")
            (accepted if verdict is None else rejected)[name] = (binary, text, verdict)
        files = [f for b, t, _ in [*accepted.values(), *rejected.values()] for f in (b, t)]
        errors = errors_by_file(onnxtxt, files)
    false_alarms, runtime_refuses = 0, 0
    for name, (binary, text, _) in accepted.items():
        flagged = [(path, e) for path in (binary, text) for e in errors[str(path)][:1]]
        if not flagged:
            continue
        runtime = runtime_verdict(binary.read_bytes())
        for path, error in flagged:
            found = f"{error['code']} at {error.get('path')}: {error['message']}"
            if runtime is None:
                false_alarms += 1
                print(f"FALSE ALARM {name} ({path.suffix}): onnx.checker and onnxruntime accept it; {found}")
            else:
                runtime_refuses += 1
                print(f"onnxruntime refuses {name} ({path.suffix}): {found}; "
                      f"onnxruntime: {runtime.splitlines()[0][:160]}")
    missed = Counter()
    for name, (binary, _, verdict) in rejected.items():
        if not errors[str(binary)]:
            missed[verdict.split(" ==>")[0][:90]] += 1
    caught = len(rejected) - sum(missed.values())
    for reason, n in missed.most_common():
        print(f"missed ({n}): onnx.checker says {reason}")
    print(
        f"checker-agreement(corpus): {len(accepted)} models onnx.checker accepts, "
        f"{false_alarms} false alarms (binary and text), {runtime_refuses} errors where "
        f"onnxruntime refuses the model; {len(rejected)} it rejects, "
        f"{caught} of them with an onnxtxt error"
    )
    return 1 if false_alarms else 0


def main() -> int:
    onnxtxt, args = sys.argv[1], sys.argv[2:]
    if args[:1] == ["--corpus"] and len(args) == 2:
        return corpus(onnxtxt, Path(args[1]))
    return suite(onnxtxt, args)


if __name__ == "__main__":
    sys.exit(main())
