#!/usr/bin/env bash
# Builds the page into web/dist/: the library compiled to WebAssembly
# (src/lib.rs), its JavaScript module made by `wasm-bindgen` (installed
# into web/target/ at the version of the `wasm-bindgen` crate in
# Cargo.lock, the first time), index.html and app.js. dist/ is then static
# files, served by anything.
#
#     bash web/build.sh
set -euo pipefail
cd "$(dirname "$0")"

version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
bindgen_root="target/wasm-bindgen-cli-$version"
if [ ! -x "$bindgen_root/bin/wasm-bindgen" ]; then
    cargo install --locked wasm-bindgen-cli --version "$version" --root "$bindgen_root"
fi

cargo build --locked --release --target wasm32-unknown-unknown
rm -rf dist.partial
"$bindgen_root/bin/wasm-bindgen" --target web --no-typescript --out-dir dist.partial \
    target/wasm32-unknown-unknown/release/onnxtxt_web.wasm
cp index.html app.js worker.js lines.js dist.partial/
# The new page replaces the old at once.
rm -rf dist
mv dist.partial dist
ls -l dist
