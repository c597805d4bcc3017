#!/usr/bin/env bash
# One command for the whole benchmark: builds release, generates the inputs,
# then measures onnxtxt against the reference (onnx 1.23.2 from Python) in two
# parts: end to end (the `onnxtxt` command as a fresh process, file to file,
# with its peak memory, against the reference called in-process from Python:
# bench/e2e.py) and in-process (the library's calls, benches/throughput.rs,
# against the reference's, bench/reference.py). Prints a Markdown report and
# writes it to the top of bench/results.md (what follows its marker line stays).
#
#   bash bench/run.sh            # full run (about 15 minutes on 2 cores)
#   bash bench/run.sh --quick    # smaller inputs, shorter timing; same as BENCH_QUICK=1;
#                                # the report goes to target/bench/results-quick.md
#   bash bench/run.sh --end-to-end   # only the end-to-end part; --in-process: only
#                                # that part (either way the report goes to
#                                # target/bench/results-PART.md)
#   BENCH_CLOCK=cpu bash bench/run.sh    # tables in CPU time (default: wall-clock
#                                # time, see bench/report.py; both are in the appendices)
#
# Timings are for reading, never for pass/fail tests. Other work on the
# machine disturbs them: the report records the load average before and after.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

quick="${BENCH_QUICK:-0}"
parts=(end-to-end in-process)
for arg in "$@"; do
    case "$arg" in
        --quick) quick=1 ;;
        --end-to-end | --in-process) parts=("${arg#--}") ;;
        *) echo "usage: bash bench/run.sh [--quick] [--end-to-end | --in-process]" >&2; exit 2 ;;
    esac
done
measures() { [[ " ${parts[*]} " == *" $1 "* ]]; }

if [ "$quick" = 1 ]; then
    inputs=target/bench/inputs-quick; results=target/bench/results-quick
    report=target/bench/results-quick.md; gen_flags=(--quick); secs=0.3; e2e_secs=1
else
    inputs=target/bench/inputs; results=target/bench/results
    report=target/bench/results-full.md; gen_flags=(); secs=1; e2e_secs=3
fi
if [ "${#parts[@]}" = 1 ]; then
    results="$results-${parts[0]}"; report="target/bench/$(basename "$results").md"
fi
mkdir -p "$results"
rm -f "$results"/{onnxtxt,reference,e2e}.tsv
py="$root/.venv/bin/python"

step() { echo "== bench/run.sh: $*" >&2; }

step "reference venv"
bash conformance/setup.sh

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

# Each part one case at a time, onnxtxt then the reference, so that the two
# sides of each ratio are timed within a minute of each other: this VM's speed
# drifts over minutes, and timing all of one side before the other let a slow
# phase move every ratio of a run. End to end, the runs of the two sides also
# alternate (bench/e2e.py).
if measures end-to-end; then
    step "end to end: the onnxtxt command, then the reference in Python, alternating"
    "$py" bench/e2e.py "$cli_exe" "$inputs" "$results/e2e.tsv" --secs "$e2e_secs" </dev/null
fi

# In-process, each side writes its TSV header once.
if measures in-process; then
    step "in-process: onnxtxt (benches/throughput.rs), then the reference (bench/reference.py)"
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
fi

load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

{
    echo "CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), nproc = $(nproc)"
    echo "Memory: $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "OS: $(uname -sr)"
    echo "$(rustc -V); $("$py" -c 'import sys, onnx, google.protobuf as p; print(f"Python {sys.version.split()[0]}, onnx {onnx.__version__}, protobuf {p.__version__}")')"
    echo "onnxtxt: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' with uncommitted changes')"
    echo "Mode: $([ "$quick" = 1 ] && echo "quick (--quick)" || echo full), ${parts[*]}; $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "Load average (1, 5, 15 min) before timing: $load_before; after: $load_after"
} >"$results/machine.txt"

step "report"
"$py" bench/report.py "$inputs" "$results" "$report" --clock "${BENCH_CLOCK:-wall}"
if [ "$report" = target/bench/results-full.md ]; then
    # bench/results.md: this report, then what follows its marker line (the
    # sections other commands measured), kept.
    kept="$(sed -n '/^<!-- bench\/run.sh writes what is above/,$p' bench/results.md)"
    { cat "$report"; echo; echo "$kept"; } >bench/results.md.partial
    mv bench/results.md.partial bench/results.md
    report=bench/results.md
fi
echo >&2
echo "bench/run.sh: report written to $report" >&2
