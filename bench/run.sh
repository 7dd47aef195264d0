#!/usr/bin/env bash
# Side-by-side benchmarks on a generated 1 GiB artifact, in one run:
#   capture 1 GiB of output   spool run -- seq 1 N       vs  seq 1 N > out      (+ peak RSS)
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
. bench/lib.sh
need_bench_tools
cargo build --release -q -p spool-tools
S=$PWD/target/release/spool
DATA=$OUT/big-${SIZE_MB}m.txt
make_log "$DATA" "$SIZE_MB"
LINES=$(wc -l < "$DATA")
WIN=$(( LINES * 85 / 100 ))
[ "$SIZE_MB" -ge 1024 ] && WIN=9000000
WEND=$(( WIN + 99 ))
export SPOOL_HOME=$PWD/$OUT/home
rm -rf "$SPOOL_HOME"

# Capture: a command printing about SIZE_MB MiB of lines. `seq > file` is the plain redirect;
# `seq | cat > file` is the floor for any capture through a pipe. spool also indexes, hashes
# and fsyncs what it stores.
SEQ_N=$(( SIZE_MB * 1024 * 1024 / 9 ))
echo "## capture (seq 1 $SEQ_N: about $SIZE_MB MiB of output)" > "$OUT/results.md"
hyperfine --warmup 1 --runs "$RUNS" --export-markdown "$OUT/capture.md" \
  --prepare "rm -rf $SPOOL_HOME $OUT/plain.out; sync" \
  -n "seq > file" "seq 1 $SEQ_N > $OUT/plain.out" \
  -n "seq | cat > file" "seq 1 $SEQ_N | cat > $OUT/plain.out" \
  -n "spool run -- seq" "$S run -- seq 1 $SEQ_N > /dev/null"
cat "$OUT/capture.md" >> "$OUT/results.md"
rm -rf "$SPOOL_HOME" "$OUT/plain.out"
RSS_PLAIN=$( { /usr/bin/time -f %M sh -c "seq 1 $SEQ_N > $OUT/plain.out" ; } 2>&1 | tail -1 )
RSS_CAPTURE=$( { /usr/bin/time -f %M "$S" run -- seq 1 "$SEQ_N" > /dev/null ; } 2>&1 | tail -1 )
rm -f "$OUT/plain.out"
# The artifact the search and window runs read: the generated log, captured through spool.
RSS_SPOOL=$( { /usr/bin/time -f %M "$S" run --json -- cat "$DATA" > "$OUT/run.json" ; } 2>&1 | tail -1 )
REF=$(sed -n 's/^  "ref": "\(sp_[a-z0-9]*\)".*/\1/p' "$OUT/run.json" | head -1)
printf '\npeak RSS: seq > file %s KiB; spool run -- seq %s KiB; spool run -- cat (1 GiB log) %s KiB\n' "$RSS_PLAIN" "$RSS_CAPTURE" "$RSS_SPOOL" >> "$OUT/results.md"

echo "## search the whole artifact" >> "$OUT/results.md"
hyperfine -N --warmup 1 --runs "$RUNS" --export-markdown "$OUT/search.md" \
  -n "rg -c NEEDLE" "rg -c NEEDLE $DATA" \
  -n "spool search -F NEEDLE" "$S search -F NEEDLE $REF --json"
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
