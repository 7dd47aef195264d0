#!/usr/bin/env bash
# End to end: the MCP Inspector CLI (npm @modelcontextprotocol/inspector 2.12.0) drives the
# built `spool serve`, over stdio and over Streamable HTTP.
# Usage: tests/e2e/inspector.sh PATH/TO/spool   (after `npm ci` in tests/e2e)
# Prints one line per check and "N passed, M failed"; exits 1 on any failure.
set -uo pipefail
SPOOL=$(realpath "$1") || exit 1
cd "$(dirname "$0")"
. ./lib.sh
export SPOOL_HOME=$(mktemp -d)
ROOT=$(mktemp -d)
printf 'alpha\nbeta\n' > "$ROOT/notes.txt"
INSPECT=(npx --no-install mcp-inspector --cli)
pass=0; fail=0
check() { # name, then a command that must succeed
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then pass=$((pass+1)); echo "ok   $name"; else fail=$((fail+1)); echo "FAIL $name"; fi
}
json_has() { # file, python expression over `d`
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
out=$(mktemp)

"${INSPECT[@]}" "$SPOOL" serve --root "$ROOT" --method tools/list > "$out" 2>/dev/null
check "stdio: tools/list names the nine tools" json_has "$out" 'sorted(t["name"] for t in d["tools"]) == ["artifacts","ci_log","fetch","list","map","query","read","run","search"]'

"${INSPECT[@]}" "$SPOOL" serve --root "$ROOT" --method tools/call --tool-name run --tool-arg 'command=seq 1 5000' --tool-arg max_tokens=600 > "$out" 2>/dev/null
check "stdio: run answers a partial envelope" json_has "$out" 'd["structuredContent"]["complete"] is False and d["content"][0]["text"].startswith("[PARTIAL")'
REF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["structuredContent"]["ref"])' "$out" 2>/dev/null)

"${INSPECT[@]}" "$SPOOL" serve --root "$ROOT" --method tools/call --tool-name read --tool-arg "ref=$REF" --tool-arg line=2500 --tool-arg limit=3 > "$out" 2>/dev/null
check "stdio: read ref line=2500 continues the same copy" json_has "$out" 'd["content"][1]["text"] == "2500\n2501\n2502\n"'

"${INSPECT[@]}" "$SPOOL" serve --root "$ROOT" --method tools/call --tool-name search --tool-arg "ref=$REF" --tool-arg 'pattern=^4999$' > "$out" 2>/dev/null
check "stdio: search finds a line past the preview" json_has "$out" 'd["structuredContent"]["hit_count"] == 1'

mkdir -p "$ROOT/code"
printf 'pub struct Store;\nimpl Store {\n    pub fn open() -> Store { Store }\n}\n' > "$ROOT/code/store.rs"
printf 'use crate::store::Store;\npub fn main() { let s = Store::open(); }\n' > "$ROOT/code/main.rs"
"${INSPECT[@]}" "$SPOOL" serve --root "$ROOT" --method tools/call --tool-name map --tool-arg path=code > "$out" 2>/dev/null
check "stdio: map lists the definition the other file uses, first" json_has "$out" 'd["structuredContent"]["scope"]["files_mapped"] == 2 and d["structuredContent"]["content"].startswith("code/store.rs") and "3:     pub fn open()" in d["content"][1]["text"]'

"${INSPECT[@]}" "$SPOOL" serve --root "$ROOT" --method tools/call --tool-name read --tool-arg path=/etc/passwd > "$out" 2>/dev/null
check "stdio: outside the roots is an isError result" json_has "$out" 'd["isError"] is True and d["structuredContent"]["error"]["code"] == "forbidden"'

"${INSPECT[@]}" "$SPOOL" serve --root "$ROOT" --method tools/call --tool-name no_such_tool > /dev/null 2>&1
code=$?
check "stdio: an unknown tool fails the call (exit $code)" test "$code" -ne 0

log=$(mktemp)
"$SPOOL" serve --http 127.0.0.1:0 --root "$ROOT" 2> "$log" &
server=$!
url=$(wait_for_url "$log")
check "http: server announced its address" test -n "$url"
"${INSPECT[@]}" --server-url "$url" --transport http --method tools/list > "$out" 2>/dev/null
check "http: tools/list" json_has "$out" 'len(d["tools"]) == 9'
"${INSPECT[@]}" --server-url "$url" --transport http --method tools/call --tool-name list --tool-arg path=. > "$out" 2>/dev/null
check "http: list" json_has "$out" '[i["name"] for i in d["structuredContent"]["items"]] == ["code", "notes.txt"]'
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null

# With a token, requests without it are refused; with it, they are served.
"$SPOOL" serve --http 127.0.0.1:0 --root "$ROOT" --token s3cret 2> "$log" &
server=$!
url=$(wait_for_url "$log")
status=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' --data '{"jsonrpc":"2.0","id":1,"method":"ping"}' "$url")
check "http: no bearer token is 401 (got $status)" test "$status" = 401
"${INSPECT[@]}" --server-url "$url" --transport http --header "Authorization: Bearer s3cret" --method tools/list > "$out" 2>/dev/null
check "http: the bearer token is accepted" json_has "$out" 'len(d["tools"]) == 9'
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null

# spool wrap in front of the real filesystem server: its tools plus read/search/artifacts, and a
# large file answered in part with a continuation that works.
FS=node_modules/.bin/mcp-server-filesystem
seq 1 200000 > "$ROOT/numbers.txt"
"${INSPECT[@]}" "$SPOOL" wrap -- "$FS" "$ROOT" --method tools/list > "$out" 2>/dev/null
check "wrap: tools/list has the upstream's tools and spool's" json_has "$out" '{"read_text_file","read","search","artifacts"} <= {t["name"] for t in d["tools"]}'
"${INSPECT[@]}" "$SPOOL" wrap -- "$FS" "$ROOT" --method tools/call --tool-name read_text_file --tool-arg "path=$ROOT/numbers.txt" > "$out" 2>/dev/null
check "wrap: a large upstream answer is partial and stored" json_has "$out" 'd["structuredContent"]["complete"] is False and d["content"][0]["text"].startswith("[PARTIAL")'
WREF=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["structuredContent"]["ref"])' "$out" 2>/dev/null)
"${INSPECT[@]}" "$SPOOL" wrap -- "$FS" "$ROOT" --method tools/call --tool-name read --tool-arg "ref=$WREF" --tool-arg line=150000 --tool-arg limit=2 > "$out" 2>/dev/null
check "wrap: read continues the stored upstream answer" json_has "$out" 'd["content"][1]["text"] == "150000\n150001\n"'

echo "inspector: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
