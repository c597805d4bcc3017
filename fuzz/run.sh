#!/usr/bin/env bash
# Runs one fuzz target on the STABLE toolchain for a number of seconds.
#
#   fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#
# TARGET is parse_text, decode_binary, structured_model, fmt_idempotent,
# lsp_edits, lsp_framing, infer, or tract_consumer (built with the `tract`
# feature, which brings in tract-onnx). lsp_framing runs under an address
# space limit (`ulimit -v`, LSP_FRAMING_ADDRESS_SPACE_KIB below): the
# language server's reader must read any bytes in bounded memory, so an
# allocation driven by a `Content-Length` fails the run.
# cargo-fuzz passes nightly-only `-Z` flags to rustc (sanitizer and
# coverage instrumentation); RUSTC_BOOTSTRAP=1 lets the stable compiler
# accept them. The address sanitizer is left out (`--sanitizer none`):
# without it the build needs no nightly-only runtime and runs faster. The
# crate's `unsafe` is a few small blocks (`grep -rn unsafe src`: SIMD
# loads and a prefetch hint, the mapped input, the encoder's buffer), each
# with its SAFETY argument. Coverage (`-Cinstrument-coverage`-style
# sancov counters) still guides libFuzzer.
#
# Crashes land in fuzz/artifacts/TARGET/. New corpus entries go to
# fuzz/runs/TARGET/ (ignored by git); the tracked seeds in fuzz/corpus/TARGET/
# are read too and never written. Minimise a crash with the same build
#   RUSTC_BOOTSTRAP=1 cargo fuzz tmin --sanitizer none -O TARGET fuzz/artifacts/TARGET/crash-...
# and copy it to fuzz/regressions/TARGET/ (tests/it/fuzz_regressions.rs replays it).
#
# The fuzz crate's dependencies are pinned by fuzz/Cargo.lock (cargo fuzz
# has no --locked: the check below refuses a lock file that would change;
# after changing the crate's dependencies, run `cargo fetch` in fuzz/ and
# commit the lock file).
set -euo pipefail
target=${1:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags...]}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags...]}
shift 2
cd "$(dirname "$0")"
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
cargo metadata --locked --format-version 1 >/dev/null
# A scratch corpus directory, so the tracked seeds stay small; the seeds are
# read from corpus/TARGET as a second input directory.
mkdir -p "runs/$target"
features=()
if [ "$target" = tract_consumer ]; then
    features=(--features tract)
fi
export RUSTC_BOOTSTRAP=1
if [ "$target" = lsp_framing ]; then
    # Built first, outside the limit (the compiler needs more).
    cargo fuzz build --sanitizer none -O "$target"
    LSP_FRAMING_ADDRESS_SPACE_KIB=$((1024 * 1024))
    ulimit -v "$LSP_FRAMING_ADDRESS_SPACE_KIB"
fi
exec cargo fuzz run --sanitizer none -O "$target" "runs/$target" "corpus/$target" "${features[@]}" -- \
    -dict=onnxtxt.dict -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -print_final_stats=1 "$@"
