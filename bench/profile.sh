#!/usr/bin/env bash
# Where onnxtxt's time goes: `perf record` of the in-process bench on one
# case and operation, then the top functions (self time, and with callees).
#
#   bash bench/profile.sh weights-4N:parse [nodes-4N:print ...]
#
# Needs the inputs of a previous `bash bench/run.sh` (or --quick, with
# BENCH_QUICK=1), and `perf` (apt-get install -y linux-perf); falls back
# to valgrind --tool=callgrind when `perf stat` does not work here. The bench
# is built with the `profiling` profile (Cargo.toml: the release build with
# line tables, so that perf can name inlined functions). Self time by
# function is what to read: release builds keep no frame pointers, so call
# chains are partial. The bench's own setup (reading and decoding the
# inputs, one untimed run to count failures and sizes) is in the profile too:
# a small part of it on the big inputs, but most of the kernel time (page
# zeroing while reading 1884 files) on the corpus.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
    inputs=target/bench/inputs-quick; results=target/bench/results-quick
else
    inputs=target/bench/inputs; results=target/bench/results
fi
py="$root/.venv/bin/python"
[ -f "$inputs/cases.tsv" ] || { echo "run bench/run.sh first (it writes $inputs)" >&2; exit 2; }
mkdir -p "$results"
cargo bench --profile profiling --bench throughput --no-run \
    --message-format=json-render-diagnostics >"$results/build-profiling.json"
exe="$("$py" -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "throughput" and m.get("executable"):
        print(m["executable"])' "$results/build-profiling.json")"
top="${PROFILE_TOP:-25}"
mkdir -p target/bench/profile

for what in "$@"; do
    tag="${what//:/-}"
    if perf stat -e instructions true >/dev/null 2>&1; then
        data="target/bench/profile/$tag.perf.data"
        perf record -q -F 1999 -g -o "$data" -- "$exe" "$inputs" /dev/null --only "$what" --reps 10 --secs 3 2>/dev/null
        echo "## $what: self time (perf)"
        perf report -i "$data" --no-children --sort symbol --percent-limit 0.5 --stdio 2>/dev/null \
            | grep -E '^ +[0-9.]+%' | head -n "$top" || true
        echo
        echo "## $what: user space / kernel split (perf)"
        perf report -i "$data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | head -n 5 || true
        echo
    else
        out="target/bench/profile/$tag.callgrind"
        valgrind --tool=callgrind --callgrind-out-file="$out" "$exe" "$inputs" /dev/null --only "$what" --reps 3 --secs 0 2>/dev/null
        echo "## $what: callgrind (inclusive)"
        callgrind_annotate --inclusive=yes "$out" | head -n $((top + 20))
    fi
done
