#!/bin/sh
# vendor.sh installs the pinned front-end libraries from npm (package-lock.json) into node_modules/ and
# copies the files the pages load into vendor/, which is committed so that `go build` needs no npm.
# Safe to run again: it replaces vendor/ with the same files.
set -eu
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
rm -rf vendor.tmp
mkdir -p vendor.tmp
cp node_modules/htmx.org/dist/htmx.min.js vendor.tmp/htmx.min.js
cp node_modules/htmx-ext-sse/dist/sse.min.js vendor.tmp/htmx-ext-sse.min.js
cp node_modules/cytoscape/dist/cytoscape.min.js vendor.tmp/cytoscape.min.js
for lib in htmx.org htmx-ext-sse cytoscape; do
	cp "node_modules/$lib/LICENSE" "vendor.tmp/$lib.LICENSE"
done
rm -rf vendor
mv vendor.tmp vendor
echo "vendor.sh: copied $(ls vendor | wc -l) files into static/vendor"
