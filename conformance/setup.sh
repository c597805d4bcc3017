#!/usr/bin/env bash
# Makes .venv in the crate root with the reference implementation pinned
# (onnx==1.23.2 from PyPI), for conformance/generate.py, and onnxruntime
# (from PyPI), whose verdicts back the checks onnx.checker does not make
# (runtime_verdict.py). Idempotent: does nothing when the venv already has
# them.
set -euo pipefail

ONNX_VERSION=1.23.2
ONNXRUNTIME_VERSION=1.32.0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

if "$venv/bin/python" -c "import onnx, onnxruntime, sys; sys.exit(onnx.__version__ != '$ONNX_VERSION')" 2>/dev/null; then
    exit 0
fi

echo "conformance/setup.sh: installing onnx==$ONNX_VERSION and onnxruntime==$ONNXRUNTIME_VERSION into $venv" >&2
# A venv whose python does not run (say, made by another machine) is redone.
"$venv/bin/python" -c '' 2>/dev/null || python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "onnx==$ONNX_VERSION" "onnxruntime==$ONNXRUNTIME_VERSION"
