#!/usr/bin/env bash
# How many lines `git diff` shows for one small edit of a real model, with
# the printer of this tree and with that of an earlier commit (by default
# 8ef48ba, the last with the width-driven layout): bench/diff_noise.py on
# the model zoo samples and PyTorch exports of the conformance corpus.
#
#   bash bench/diff_noise.sh [BEFORE_COMMIT]
#
# Writes target/bench/diff-noise.md. Needs the corpus
# (ONNXTXT_CORPUS, default target/conformance: bash conformance/run.sh
# makes it) and .venv (bash conformance/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
before="${1:-8ef48ba}"
python="${ONNXTXT_PYTHON:-.venv/bin/python}"
mkdir -p target/bench
# The earlier printer, built from that commit's files into this target
# folder (the dependencies are shared, only onnxtxt itself is rebuilt).
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
git archive "$before" | tar -x -C "$src"
(cd "$src" && cargo build --release --quiet --bin onnxtxt --target-dir "$OLDPWD/target")
cp target/release/onnxtxt target/bench/onnxtxt-before
cargo build --release --quiet --bin onnxtxt
"$python" bench/diff_noise.py \
    --onnxtxt "before ($before)=target/bench/onnxtxt-before" \
    --onnxtxt "after=target/release/onnxtxt" | tee target/bench/diff-noise.md
