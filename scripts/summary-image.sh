#!/usr/bin/env bash
# Renders the first printed page of the demo workbook's Summary to docs/summary.png, as an
# auditor would see it: the demo, then LibreOffice to PDF, then poppler's pdftoppm.
# Needs the Debian packages libreoffice-calc-nogui and poppler-utils. Run: npm run docs:image
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm run build --silent
node dist/cli/main.js demo --db "$work/demo.db" --out "$work/reports" > /dev/null
soffice --headless --norestore "-env:UserInstallation=file://$work/lo" --convert-to pdf --outdir "$work" "$work"/reports/*.xlsx > /dev/null
pdftoppm -png -r 70 -f 1 -l 1 -singlefile "$work"/*.pdf docs/summary
# What the picture shows, as text a test holds to the workbook the demo makes now.
node scripts/summary-labels.mjs "$work"/reports/*.xlsx > docs/summary.txt
echo "docs/summary.png docs/summary.txt"
