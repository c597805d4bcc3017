"""Checks the models in examples/ with the reference implementation.

Usage: examples.py [FILE...]

Each FILE (by default every examples/*.onnxtxt of the crate) must be read
by the reference parser (onnx.parser.parse_model) and pass
onnx.checker.check_model with full_check=True (which runs shape inference
too). Prints one line per file and exits non-zero if any fails. Runs with
the venv made by conformance/setup.sh; run.sh runs it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import onnx
import onnx.checker
import onnx.parser


def check(path: Path) -> str | None:
    """Returns why the reference rejects the model at `path`, or None."""
    try:
        model = onnx.parser.parse_model(path.read_text(encoding="utf-8"))
        onnx.checker.check_model(model, full_check=True)
    except Exception as err:  # noqa: BLE001 - parser, checker and inference errors
        return f"{type(err).__name__}: {str(err).strip()}"
    return None


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    paths = [Path(arg) for arg in sys.argv[1:]] or sorted(root.glob("examples/*.onnxtxt"))
    if not paths:
        print("examples.py: no example to check", file=sys.stderr)
        return 1
    failed = 0
    for path in paths:
        error = check(path)
        if error is None:
            print(f"example {path.name}: accepted by onnx {onnx.__version__}")
        else:
            print(f"example {path.name}: REJECTED by onnx {onnx.__version__}: {error}")
            failed += 1
    print(f"examples: {len(paths) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
