"""Parses a batch of texts with the reference parser (onnx.parser).

Usage: reference_parse.py DIR

DIR/list.tsv has one line per text: NAME <tab> KIND, KIND being "model" or
"function". For each, reads DIR/NAME.txt, parses it with
onnx.parser.parse_model or parse_function, and writes DIR/NAME.ref.pb (the
result, serialized deterministically) or DIR/NAME.ref.err (the error
message). tests/it/conformance.rs writes the texts and reads the results; this
runs with the venv made by conformance/setup.sh. Exits non-zero only when it
cannot do its job (a bad list); a text the parser rejects is data.
"""

import sys
import time
from pathlib import Path

import onnx
import onnx.parser


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    start = time.monotonic()
    folder = Path(sys.argv[1])
    parsers = {"model": onnx.parser.parse_model, "function": onnx.parser.parse_function}
    ok = failed = 0
    for line in (folder / "list.tsv").read_text().splitlines():
        if not line:
            continue
        name, kind = line.split("\t")
        parse = parsers[kind]
        base = folder / name
        text = Path(f"{base}.txt").read_text(encoding="utf-8")
        try:
            parsed = parse(text)
        except Exception as err:  # noqa: BLE001 - onnx.parser.ParseError, mostly
            message = str(err).strip() or type(err).__name__
            Path(f"{base}.ref.err").write_text(f"{type(err).__name__}: {message}\n")
            failed += 1
            continue
        Path(f"{base}.ref.pb").write_bytes(parsed.SerializeToString(deterministic=True))
        ok += 1
    print(f"onnx {onnx.__version__}: parsed {ok} of {ok + failed} texts in {folder} "
          f"in {time.monotonic() - start:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
