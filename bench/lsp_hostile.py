"""The language server on large documents, over a pipe as an editor drives
it (issue 43): opens one document, then types KEYS spaces at its start one
at a time, each time waiting for the diagnostics of the new version.
Prints the time to the first diagnostics, the median and slowest
keystroke, the diagnostics published and the server's peak RSS (from
`/usr/bin/time -v`).

    python3 bench/lsp_hostile.py target/release/onnxtxt nodes:45000 warnings:195000 nodes:280000

Documents: `nodes:N`, the lsp_latency bench's chain of N Conv, Relu and
LeakyRelu nodes (280,000 is 26 MB); `warnings:N`, N nodes whose outputs
are never used, one warning each (1,150,000 is 24 MB).
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import time

KEYS = 5
HEADER = '<ir_version: 10, opset_import: ["": 21]>'


def nodes(count: int) -> str:
    lines = [HEADER, "main (float[1,64,32,32] input) => (float[1,64,32,32] output) <float[64,64,3,3] w = {1}> {"]
    previous = "input"
    for i in range(count):
        output = f'"/blocks.{i // 10}/act_{i}"'
        if i % 3 == 0:
            lines.append(f'  ["/blocks.{i}/conv"] {output} = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> ({previous}, w)')
        elif i % 3 == 1:
            lines.append(f"  {output} = Relu ({previous})")
        else:
            lines.append(f"  {output} = LeakyRelu <alpha = 0.1> ({previous})")
        previous = output
    lines += [f"  output = Identity ({previous})", "}"]
    return "\n".join(lines) + "\n"


def warnings(count: int) -> str:
    lines = [HEADER, "main (float[N] x) => (float[N] y) {"]
    lines += [f"  u{i} = Relu (x)" for i in range(count)]
    lines += ["  y = Relu (x)", "}"]
    return "\n".join(lines) + "\n"


def frame(message: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read(out) -> dict | None:
    length = None
    while line := out.readline():
        if not line.strip():
            return json.loads(out.read(length))
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return None


def measure(server: str, text: str) -> tuple[float, list[float], int, int]:
    process = subprocess.Popen(
        ["/usr/bin/time", "-v", server, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )

    def send(message: dict) -> None:
        process.stdin.write(frame(message))
        process.stdin.flush()

    def diagnostics(version: int) -> list:
        while message := read(process.stdout):
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params["version"] == version:
                return params["diagnostics"]
        raise RuntimeError("the server stopped")

    send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    read(process.stdout)
    send({"method": "initialized", "params": {}})
    uri = "file:///large.onnxtxt"
    start = time.perf_counter()
    document = {"uri": uri, "languageId": "onnxtxt", "version": 1, "text": text}
    send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    published = len(diagnostics(1))
    opened = time.perf_counter() - start
    keystrokes = []
    for version in range(2, KEYS + 2):
        start = time.perf_counter()
        at = {"line": 0, "character": 0}
        change = {"range": {"start": at, "end": at}, "text": " "}
        send({"method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        diagnostics(version)
        keystrokes.append(time.perf_counter() - start)
    send({"id": 2, "method": "shutdown"})
    read(process.stdout)
    send({"method": "exit"})
    _, stderr = process.communicate(timeout=600)
    rss = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return opened, keystrokes, published, int(rss.group(1)) // 1024 if rss else -1


def main() -> None:
    server, *documents = sys.argv[1:]
    makers = {"nodes": nodes, "warnings": warnings}
    for spec in documents:
        kind, count = spec.split(":")
        text = makers[kind](int(count))
        opened, keystrokes, published, rss = measure(server, text)
        print(
            f"{spec:18} {len(text) / 1e6:6.2f} MB  first diagnostics {opened:6.2f} s  "
            f"keystroke median {statistics.median(keystrokes):6.3f} s (slowest {max(keystrokes):6.3f} s)  "
            f"{published} diagnostics  peak RSS {rss} MiB"
        )


if __name__ == "__main__":
    main()
