#!/usr/bin/env bash
# Side-by-side benchmarks on a generated 1 GiB artifact, in one run:
#   capture 1 GiB of output   spool run -- cat FILE      vs  cat FILE > out     (+ peak RSS)
#   search the whole of it    spool search -F NEEDLE REF vs  rg -c NEEDLE FILE
#   a window at line 9e6      spool read REF --lines ... vs  sed -n 'A,Bp;Bq' FILE
# Needs hyperfine, ripgrep and GNU time (apt-get install hyperfine ripgrep time).
# SIZE_MB=256 bench/run.sh for a quicker run. Results go to bench/out/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-1024}
RUNS=${RUNS:-5}
OUT=bench/out
mkdir -p "$OUT"
for tool in hyperfine rg /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: needs $tool (apt-get install hyperfine ripgrep time)" >&2; exit 2; }
done
cargo build --release -q -p spool-cli
S=$PWD/target/release/spool
DATA=$OUT/big-${SIZE_MB}m.txt
if [ ! -s "$DATA" ]; then
  echo "generating $DATA ..." >&2
  # ~100-byte log lines; one NEEDLE line in every 100,000.
  awk -v mb="$SIZE_MB" 'BEGIN {
    target = mb * 1024 * 1024; n = 0; i = 0
    while (n < target) {
      i++
      if (i % 100000 == 0) line = sprintf("%09d WARN  request id=%d NEEDLE upstream timeout after 30s, retrying with backoff", i, i)
      else line = sprintf("%09d INFO  request id=%d path=/api/v1/items/%d status=200 bytes=%d took=%dms", i, i, i % 977, (i * 37) % 65536, i % 97)
      print line; n += length(line) + 1
    }
  }' > "$DATA"
fi
LINES=$(wc -l < "$DATA")
WIN=$(( LINES * 85 / 100 ))
[ "$SIZE_MB" -ge 1024 ] && WIN=9000000
WEND=$(( WIN + 99 ))
export SPOOL_HOME=$PWD/$OUT/home
rm -rf "$SPOOL_HOME"

echo "## capture ($SIZE_MB MiB, $LINES lines)" > "$OUT/results.md"
hyperfine --warmup 1 --runs "$RUNS" --export-markdown "$OUT/capture.md" \
  --prepare "rm -rf $SPOOL_HOME $OUT/plain.out; sync" \
  -n "cat > file" "cat $DATA > $OUT/plain.out" \
  -n "spool run -- cat" "$S run -- cat $DATA > /dev/null"
cat "$OUT/capture.md" >> "$OUT/results.md"
rm -rf "$SPOOL_HOME"
RSS_PLAIN=$( { /usr/bin/time -f %M sh -c "cat $DATA > $OUT/plain.out" ; } 2>&1 | tail -1 )
RSS_SPOOL=$( { /usr/bin/time -f %M "$S" run --json -- cat "$DATA" > "$OUT/run.json" ; } 2>&1 | tail -1 )
REF=$(sed -n 's/^  "ref": "\(sp_[a-z0-9]*\)".*/\1/p' "$OUT/run.json" | head -1)
printf '\npeak RSS: cat > file %s KiB; spool run %s KiB\n' "$RSS_PLAIN" "$RSS_SPOOL" >> "$OUT/results.md"

echo "## search the whole artifact" >> "$OUT/results.md"
hyperfine --warmup 1 --runs "$RUNS" --export-markdown "$OUT/search.md" \
  -n "rg -c NEEDLE" "rg -c NEEDLE $DATA" \
  -n "spool search -F NEEDLE" "$S search -F NEEDLE $REF --json > /dev/null"
cat "$OUT/search.md" >> "$OUT/results.md"
RSS_SEARCH=$( { /usr/bin/time -f %M "$S" search -F NEEDLE "$REF" --json > /dev/null ; } 2>&1 | tail -1 )
printf '\npeak RSS: spool search %s KiB\n' "$RSS_SEARCH" >> "$OUT/results.md"

echo "## a 100-line window at line $WIN" >> "$OUT/results.md"
hyperfine --warmup 2 --runs $(( RUNS * 4 )) --export-markdown "$OUT/window.md" \
  -n "sed -n" "sed -n '${WIN},${WEND}p;${WEND}q' $DATA" \
  -n "spool read --lines" "$S read $REF --lines $WIN:$WEND > /dev/null" \
  -n "spool artifacts (process start, no tokenizer)" "$S artifacts --limit 1 > /dev/null"
cat "$OUT/window.md" >> "$OUT/results.md"
cat "$OUT/results.md"
