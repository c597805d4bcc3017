"""No false alarms: `onnxtxt check` gives no error where onnx.checker accepts.

Usage: checker_agreement.py ONNXTXT_BINARY DIR...

For every `.onnxtxt` file in the DIRs (the diagnostics suite: one mistake
per file) that onnxtxt parses, asks the reference
(`onnx.checker.check_model(m, full_check=True)` on the binary onnxtxt
writes) and `onnxtxt check` for their verdicts, and fails if onnxtxt reports
an error on a model the reference accepts. Where the reference rejects a
model that onnxtxt passes (with warnings or nothing), the case is listed: a
mistake onnxtxt does not catch yet, not a failure. Prints one line of
counts, `checker-agreement: ...`.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
import onnx.checker


def reference_verdict(binary: Path) -> str | None:
    """None if onnx.checker accepts the model, else its message."""
    try:
        onnx.checker.check_model(onnx.load(str(binary)), full_check=True)
    except Exception as error:  # the checker raises several kinds
        return str(error).splitlines()[0]
    return None


def main() -> int:
    onnxtxt, dirs = sys.argv[1], sys.argv[2:]
    files = sorted(f for d in dirs for f in Path(d).glob("*.onnxtxt"))
    counts = {"syntax": 0, "both reject": 0, "both accept": 0, "missed": 0, "false alarm": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for file in files:
            binary = Path(tmp) / (file.stem + ".onnx")
            parse = subprocess.run([onnxtxt, "parse", str(file), "-o", str(binary)], capture_output=True)
            if parse.returncode != 0:
                counts["syntax"] += 1
                continue
            reference = reference_verdict(binary)
            ours = subprocess.run([onnxtxt, "check", str(file)], capture_output=True, text=True)
            if ours.returncode not in (0, 1):
                print(f"{file}: onnxtxt check exited {ours.returncode}\n{ours.stderr}")
                return 1
            flagged = ours.returncode == 1
            if flagged and reference is None:
                counts["false alarm"] += 1
                print(f"FALSE ALARM {file.name}: onnx.checker accepts it, onnxtxt check says\n{ours.stderr}")
            elif not flagged and reference is not None:
                counts["missed"] += 1
                print(f"missed {file.name}: onnx.checker says {reference}")
            else:
                counts["both reject" if flagged else "both accept"] += 1
    print("checker-agreement: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 1 if counts["false alarm"] else 0


if __name__ == "__main__":
    sys.exit(main())
