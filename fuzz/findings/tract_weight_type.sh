#!/bin/sh
# Interesting when tract panics at weights.rs:24 on the model $1
# (tract_repro: see README.md here).
repro="${TRACT_REPRO:-$(dirname "$0")/../target/debug/tract_repro}"
"$repro" "$1" 2>&1 | grep -qF 'weights.rs:24'
