#!/bin/sh
# Installs ledger-recon as a package into PREFIX (PREFIX/bin/ledger-recon), from this checkout
# built with `npm ci` (which builds dist/): it packs the checkout as the registry would ship it
# and installs that tarball globally under PREFIX, compiling better-sqlite3 (python3, make and
# g++; about a minute). The Dockerfile's build stage runs it; so does test/cli/install.test.ts,
# without a Docker daemon.
#   sh scripts/install-prefix.sh /opt/ledger-recon
set -eu
prefix="$1"
cd "$(dirname "$0")/.."
test -f dist/cli/main.js || { echo "dist/ is not built: run npm ci (or npm run build) first" >&2; exit 2; }
packs="$(mktemp -d)"
trap 'rm -rf "$packs"' EXIT
npm pack --ignore-scripts --silent --pack-destination "$packs" >/dev/null
npm install --global --prefix "$prefix" --no-audit --no-fund "$packs"/ledger-recon-*.tgz
test -x "$prefix/bin/ledger-recon"
