"""One end-to-end run of the reference, file to file, for bench/e2e.py.

Usage: python bench/e2e_reference.py print MODEL.onnx OUT.txt
       python bench/e2e_reference.py parse MODEL.txt OUT.onnx

Does what a Python user does (`onnx.load_model` + `onnx.printer.to_text` +
write; read + `onnx.parser.parse_model` + `SerializeToString` + write) and
prints one JSON line: the wall-clock and CPU seconds of those calls alone
(after `import onnx`: interpreter start-up and imports are not counted), and
the process's peak resident set size before and after them (kB, as
`getrusage` and `/usr/bin/time` give it).
"""

import json
import resource
import sys
import time

import onnx
import onnx.parser
import onnx.printer


def peak_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main() -> None:
    op, src, dst = sys.argv[1:4]
    baseline = peak_kb()
    wall, cpu = time.perf_counter(), time.process_time()
    if op == "print":
        model = onnx.load_model(src)
        with open(dst, "w", encoding="utf-8") as f:
            f.write(onnx.printer.to_text(model))
    elif op == "parse":
        with open(src, encoding="utf-8") as f:
            text = f.read()
        data = onnx.parser.parse_model(text).SerializeToString()
        with open(dst, "wb") as f:
            f.write(data)
    else:
        sys.exit(f"unknown operation {op!r}")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"wall_s": wall, "cpu_s": cpu, "baseline_kb": baseline, "peak_kb": peak_kb()}))


if __name__ == "__main__":
    main()
