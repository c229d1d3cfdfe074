#!/usr/bin/env bash
# Builds the web companion into web/dist: the library compiled to WebAssembly (web/engine, with
# the bundled rulesets), its JavaScript glue by wasm-bindgen, and the page. A fresh machine
# needs only rustup and cargo: the wasm target and wasm-bindgen's command line (the version
# Cargo.lock pins) are installed here from their registries when missing.
# Then: `node web/serve.mjs` serves web/dist on http://127.0.0.1:8080/.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "installing wasm-bindgen-cli $want (once; a few minutes)" >&2
  cargo install --quiet wasm-bindgen-cli --version "=$want"
fi

cargo build --quiet -p servitor-web --target wasm32-unknown-unknown --profile web
rm -rf web/dist
mkdir -p web/dist
wasm-bindgen --target web --no-typescript --out-dir web/dist/pkg \
  target/wasm32-unknown-unknown/web/servitor_web.wasm
cp web/index.html web/app.js web/style.css web/manifest.webmanifest web/icon.svg web/dist/
# The service worker's cache is named after this build, so a new build replaces the old copy.
version=$( (cat web/dist/pkg/* web/dist/*.*; cat web/sw.js) | sha256sum | cut -c1-12)
sed "s/^const VERSION = 'dev';/const VERSION = '$version';/" web/sw.js > web/dist/sw.js
sed -i "s/^const VERSION = 'dev';/const VERSION = '$version';/" web/dist/app.js
# Each file precompressed beside it (.br, .gz): web/serve.mjs sends them as they are, as any
# static host that serves precompressed files does; the sizes are printed.
node web/size.mjs web/dist --write
