#!/usr/bin/env bash
# One command for the whole benchmark: builds release, generates the inputs,
# times onnxtxt (in-process, benches/throughput.rs) and the reference (onnx
# 1.23.2 from Python, bench/reference.py) on them, measures the CLI's peak
# memory, prints a Markdown report and writes it to bench/results.md.
#
#   bash bench/run.sh            # full run (a few minutes on 2 cores)
#   bash bench/run.sh --quick    # smaller inputs, shorter timing; same as BENCH_QUICK=1;
#                                # the report goes to target/bench/results-quick.md
#   BENCH_CLOCK=cpu bash bench/run.sh    # tables in CPU time (default: wall-clock
#                                # time, see bench/report.py; both are in the appendix)
#
# Timings are for reading, never for pass/fail tests. Other work on the
# machine disturbs them: the report records the load average before and after.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

quick="${BENCH_QUICK:-0}"
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        *) echo "usage: bash bench/run.sh [--quick]" >&2; exit 2 ;;
    esac
done

if [ "$quick" = 1 ]; then
    inputs=target/bench/inputs-quick; results=target/bench/results-quick
    report=target/bench/results-quick.md; gen_flags=(--quick); secs=0.3
else
    inputs=target/bench/inputs; results=target/bench/results
    report=bench/results.md; gen_flags=(); secs=1
fi
mkdir -p "$results"
py="$root/.venv/bin/python"

step() { echo "== bench/run.sh: $*" >&2; }

step "reference venv"
bash conformance/setup.sh
if [ ! -x /usr/bin/time ]; then
    step "installing GNU time"
    apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
fi

step "building (release)"
# One cargo command builds the bench and the CLI (cargo builds a package's
# binaries along with its benches), so both come from the same sources even
# while they are being edited; the executables are then run directly.
cargo bench --bench throughput --no-run --message-format=json-render-diagnostics >"$results/build.json"
exes="$("$py" -c '
import json, sys
exes = {}
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        exes[m["target"]["name"]] = m["executable"]
print(exes["throughput"], exes["onnxtxt"])' "$results/build.json")"
read -r bench_exe cli_exe <<<"$exes"

step "inputs"
"$py" bench/gen.py "$inputs" "${gen_flags[@]}"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# One case at a time, onnxtxt then the reference, so that the two sides of
# each ratio are timed within a minute of each other: this VM's speed drifts
# over minutes, and timing all of one side before the other let a slow phase
# move every ratio of a run. Each side writes its TSV header once.
step "timing, one case at a time: onnxtxt (in-process), then the reference (from Python)"
: >"$results/onnxtxt.tsv"
: >"$results/reference.tsv"
while IFS=$'\t' read -r case _; do
    "$bench_exe" "$inputs" "$tmp/onnxtxt.tsv" --only "$case" --secs "$secs" </dev/null
    "$py" bench/reference.py "$inputs" "$tmp/reference.tsv" --only "$case" --secs "$secs" </dev/null
    for side in onnxtxt reference; do
        if [ -s "$results/$side.tsv" ]; then
            tail -n +2 "$tmp/$side.tsv" >>"$results/$side.tsv"
        else
            cat "$tmp/$side.tsv" >"$results/$side.tsv"
        fi
    done
done <"$inputs/cases.tsv"

# The largest weight-heavy input.
wmax="$inputs/$(awk -F'\t' '$2 == "weights" { print $3 "\t" $1 }' "$inputs/cases.tsv" | sort -n | tail -1 | cut -f2)"
step "peak memory on $(basename "$wmax")"
# rss LABEL TEXT_FILE BINARY_FILE -- COMMAND...: one line of memory.tsv.
rss() {
    local label="$1" text="$2" bin="$3"; shift 4
    /usr/bin/time -v -o "$tmp/time" "$@" >/dev/null
    local kb; kb="$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$tmp/time")"
    local tb=0 bb=0
    [ -n "$text" ] && tb="$(stat -c %s "$text")"
    [ -n "$bin" ] && bb="$(stat -c %s "$bin")"
    printf '%s\t%s\t%s\t%s\n' "$label" "$tb" "$bb" "$kb"
}
{
    rss "onnxtxt parse (CLI)" "$wmax.txt" "$tmp/ox.onnx" -- "$cli_exe" parse "$wmax.txt" -o "$tmp/ox.onnx"
    rss "onnxtxt print (CLI)" "$tmp/ox.txt" "$wmax.onnx" -- "$cli_exe" print "$wmax.onnx" -o "$tmp/ox.txt"
    rss "reference parse (Python, context)" "$wmax.txt" "$tmp/ref.onnx" -- "$py" -c '
import sys, onnx.parser
text = open(sys.argv[1], encoding="utf-8").read()
open(sys.argv[2], "wb").write(onnx.parser.parse_model(text).SerializeToString())' "$wmax.txt" "$tmp/ref.onnx"
    rss "reference print (Python, context)" "$tmp/ref.txt" "$wmax.onnx" -- "$py" -c '
import sys, onnx, onnx.printer
model = onnx.load_model(sys.argv[1])
open(sys.argv[2], "w", encoding="utf-8").write(onnx.printer.to_text(model))' "$wmax.onnx" "$tmp/ref.txt"
    rss "Python baseline (import onnx only)" "" "" -- "$py" -c 'import onnx.parser, onnx.printer'
} >"$results/memory.tsv"

load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

{
    echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), nproc = $(nproc)"
    echo "Memory: $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "OS: $(uname -sr)"
    echo "$(rustc -V); $("$py" -c 'import sys, onnx, google.protobuf as p; print(f"Python {sys.version.split()[0]}, onnx {onnx.__version__}, protobuf {p.__version__}")')"
    echo "onnxtxt: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' with uncommitted changes')"
    echo "Mode: $([ "$quick" = 1 ] && echo "quick (--quick)" || echo full); $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "Load average (1, 5, 15 min) before timing: $load_before; after: $load_after"
} >"$results/machine.txt"

step "report"
"$py" bench/report.py "$inputs" "$results" "$report" --clock "${BENCH_CLOCK:-wall}"
echo >&2
echo "bench/run.sh: report written to $report" >&2
