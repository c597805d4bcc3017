#!/usr/bin/env bash
# Conformance with the reference implementation (onnx on PyPI), end to end:
# makes the venv (setup.sh), writes the corpus unless it is up to date
# (generate.py), checks that onnxtxt check raises no false alarm on the
# diagnostics suite and the corpus (checker_agreement.py) and catches the
# mistakes of mutants of the corpus (mutants.py; the type and shape
# mistakes at their node, infer_mutants.py), checks that onnx.checker
# accepts every model smith makes in its valid mode (smith_valid.py), writes
# onnx's backend test cases (testcases.py, for tests/it/testcase_conformance.rs:
# every data file and case directory round-trips through text), then
# runs the ignored tests that read the corpus: in
# tests/it/conformance.rs the checks parse (reference text -> onnxtxt IR equals
# the reference's), roundtrip (parse(print(m)) is m, byte for byte), compat
# (the reference parser, run in one batch by reference_parse.py, reads
# print --compat as onnxtxt does) and fixpoint (print(parse(print(m))) is
# print(m)), each ending with a line `conformance(<check>): N passed, M
# failed`; in tests/it/ops_reference.rs the operator registry against onnx
# (after checking that grammar/operators.py would generate it unchanged);
# in tests/it/infer_reference.rs type and shape inference against onnx's
# (written by infer_reference.py to ONNXTXT_INFERENCE, default
# target/inference), value by value, with lines `infer(...)`; and the
# library's ignored test that the plain readers read the corpus.
# Runs from any directory; exits non-zero when anything fails.
# ONNXTXT_CORPUS (default target/conformance, relative to the crate root) says
# where the corpus goes; ONNXTXT_CONFORMANCE_FILTER narrows
# tests/it/conformance.rs to some cases; ONNXTXT_PYTHON replaces .venv/bin/python
# for reference_parse.py; ONNXTXT_MUTANTS_PER_KIND sets how many models
# mutants.py mutates per kind of mistake (default 400, 0 for all).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash conformance/setup.sh
python=.venv/bin/python

# The reference parser and checker must accept every model in examples/.
"$python" conformance/examples.py

corpus="${ONNXTXT_CORPUS:-target/conformance}"
case "$corpus" in /*) ;; *) corpus="$root/$corpus" ;; esac
export ONNXTXT_CORPUS="$corpus"

# The corpus depends only on the reference's version and on generate.py.
stamp="$("$python" - <<'PY'
import hashlib, onnx
digest = hashlib.sha256(open("conformance/generate.py", "rb").read()).hexdigest()
print(f"onnx {onnx.__version__} generate.py {digest}")
PY
)"
if [ -f "$corpus/stamp" ] && [ "$(cat "$corpus/stamp")" = "$stamp" ]; then
    echo "conformance corpus in $corpus is up to date ($stamp)"
else
    "$python" conformance/generate.py
    echo "$stamp" >"$corpus/stamp"
fi

# No false alarms: onnxtxt check gives no error on a model of the
# diagnostics suite, or of the corpus (binary, and printed as text), that
# onnx.checker accepts and onnxruntime loads and runs (runtime_verdict.py).
cargo build --release --quiet --bin onnxtxt
"$python" conformance/checker_agreement.py target/release/onnxtxt tests/diagnostics
"$python" conformance/checker_agreement.py target/release/onnxtxt --corpus "$corpus"

# Mutants: every mistake onnx.checker rejects in a mutant of a corpus model
# is reported by onnxtxt check, at the mutated node (binary and text), and
# three at once. ONNXTXT_MUTANTS_PER_KIND models per kind of mistake (0:
# all of them, about 8 minutes on 2 cores).
"$python" conformance/mutants.py target/release/onnxtxt --per-kind "${ONNXTXT_MUTANTS_PER_KIND:-400}"

# The operator registry is what grammar/operators.py generates from this
# onnx (fails when a file of src/ops/generated/ is stale), and
# tests/it/ops_reference.rs compares it with what onnx says, schema by schema.
"$python" grammar/operators.py --check
"$python" conformance/context_bodies.py target/release/onnxtxt  # ops --function of context-dependent operators prints the bodies onnx builds
"$python" grammar/operators.py --json "$corpus/operators.json"

# What onnx.shape_inference.infer_shapes makes of every model of the corpus,
# for tests/it/infer_reference.rs (rewritten only when it or the corpus
# changed).
"$python" conformance/infer_reference.py

# Valid mode of smith: onnx.checker (full_check) accepts every model of
# 2,000 fixed seeds, with the default config and with swarm configs, and
# onnxtxt check gives none of them an error; prints operator coverage and
# the share ReferenceEvaluator runs.
"$python" conformance/smith_valid.py target/release/onnxtxt --count 2000
"$python" conformance/smith_valid.py target/release/onnxtxt --count 2000 --first-seed 100000 --swarm

# Inference mutants: onnxtxt check reports, at the mutated node, every type
# or shape mistake that onnx.checker rejects (200 corpus models a kind).
"$python" conformance/infer_mutants.py target/release/onnxtxt --per-kind 200

# onnx's backend test cases (node and model tests, written by onnx's own
# writer, and those shipped in the wheel) for tests/it/testcase_conformance.rs.
"$python" conformance/testcases.py

# The ignored tests: tests/it/conformance.rs, tests/it/ops_reference.rs,
# tests/it/infer_reference.rs and tests/it/schema.rs, and the library's own
# corpus test (the plain readers read the corpus). --no-fail-fast: a failing
# test must not hide the others.
cargo test --release --no-fail-fast --lib --test it -- --ignored --nocapture
