#!/usr/bin/env bash
# Finding instead of paging (issue 14), side by side in one run:
#   a 156,000-char docs page and a 1 GiB log (SIZE_MB to change), each stored once, then
#   - the ranked word index: built on first use (first `search --query`), time and peak RSS
#   - a warm word query: a rare word, and words that many passages hold
#   - a read that shows what it finds beside the preview (`read REF --query`)
#   - the literal search of the whole artifact beside `rg -c` on the same file
# Needs hyperfine, ripgrep and GNU time (apt-get install hyperfine ripgrep time).
# PAGE_ONLY=1 measures the page alone. Results go to bench/out/find.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-1024}
RUNS=${RUNS:-10}
OUT=bench/out
mkdir -p "$OUT"
. bench/lib.sh
need_bench_tools
cargo build --release -q -p spool-tools
S=$PWD/target/release/spool
export SPOOL_HOME=$PWD/$OUT/find-home
rm -rf "$SPOOL_HOME"
RESULTS=$OUT/find.md

# The docs page: a settings table of ~156,000 chars, the row that answers the question at 88%
# of it, named by a variable the question does not name, among rows that share its words.
PAGE=$OUT/settings-page.md
awk 'BEGIN {
  print "# Environment variables\n\n| Variable | Purpose |\n|---|---|"
  for (i = 0; i < 2000; i++) {
    printf "| SETTING_NUMBER_%d | Controls ordinary behaviour number %d of the tool. |\n", i, i
    if (i == 1760) {
      print "| CONNECT_TIMEOUT_MS | How long connecting to a server may take. |"
      print "| STARTUP_BANNER | Skip the banner shown at startup. |"
      print "| REMOTE_LOG_LEVEL | Log level of remote servers. |"
      print "| MCP_DISCOVERY_CACHE | Set to 1 to skip connecting to remote MCP servers at every startup; their tools load from the cache. |"
      print "| SERVER_LIST | The servers to list. |"
    }
  }
}' > "$PAGE"

LOG=$OUT/big-${SIZE_MB}m.txt
[ -z "${PAGE_ONLY:-}" ] && make_log "$LOG" "$SIZE_MB"

ref_of() { sed -n 's/^  "ref": "\(sp_[a-z0-9]*\)".*/\1/p' | head -1; }
PAGE_REF=$("$S" read "$PAGE" --json | ref_of)
LOG_REF=
[ -z "${PAGE_ONLY:-}" ] && LOG_REF=$("$S" run --json -- cat "$LOG" | ref_of)
QUESTION="skip connecting to remote servers at startup"

{
  echo "# find instead of page ($(date -u +%F), $(nproc) cores)"
  echo
  echo "docs page: $(wc -m < "$PAGE") chars, $(wc -l < "$PAGE") lines${LOG_REF:+; log: $(wc -c < "$LOG") bytes, $(wc -l < "$LOG") lines}"
  echo
  echo "## building the word index (first word search of each artifact)"
  echo
  echo "| artifact | build + first query | peak RSS | index size |"
  echo "| --- | ---: | ---: | ---: |"
} > "$RESULTS"
for which in page ${LOG_REF:+log}; do
  if [ "$which" = page ]; then R=$PAGE_REF; Q=$QUESTION; else R=$LOG_REF; Q="upstream timeout retrying"; fi
  rm -f "$SPOOL_HOME"/*/"$R".words 2>/dev/null || true
  START=$(date +%s.%N)
  RSS=$( { /usr/bin/time -f %M "$S" search --query "$Q" "$R" --json > /dev/null ; } 2>&1 | tail -1 )
  END=$(date +%s.%N)
  SIZE=$(find "$SPOOL_HOME" -name "$R.words" -printf '%s\n' | head -1)
  printf '| %s | %.2f s | %s MiB | %s KiB |\n' "$which" "$(echo "$END - $START" | bc)" \
    "$(( RSS / 1024 ))" "$(( ${SIZE:-0} / 1024 ))" >> "$RESULTS"
done

echo >> "$RESULTS"
echo "## the docs page: warm queries, and the literal case beside rg" >> "$RESULTS"
hyperfine -N --warmup 2 --runs "$RUNS" --export-markdown "$OUT/find-page.md" \
  -n "rg -c MCP_DISCOVERY_CACHE" "rg -c MCP_DISCOVERY_CACHE $PAGE" \
  -n "spool search -F MCP_DISCOVERY_CACHE" "$S search -F MCP_DISCOVERY_CACHE $PAGE_REF --json" \
  -n "spool search --query (question)" "$S search --query '$QUESTION' $PAGE_REF --json" \
  -n "spool read --query (question)" "$S read $PAGE_REF --query '$QUESTION' --json"
cat "$OUT/find-page.md" >> "$RESULTS"

if [ -z "$LOG_REF" ]; then cat "$RESULTS"; exit 0; fi
echo >> "$RESULTS"
echo "## the log: warm queries, and the literal case beside rg" >> "$RESULTS"
hyperfine -N --warmup 1 --runs "$RUNS" --export-markdown "$OUT/find-log.md" \
  -n "rg -c NEEDLE" "rg -c NEEDLE $LOG" \
  -n "spool search -F NEEDLE" "$S search -F NEEDLE $LOG_REF --json" \
  -n "spool search --query NEEDLE (rare: 1 line in 100,000)" "$S search --query NEEDLE $LOG_REF --json" \
  -n "spool read --query NEEDLE (tail beside the passages)" "$S read $LOG_REF --query NEEDLE --json" \
  -n "spool search --query 'backoff retrying'" "$S search --query 'backoff retrying' $LOG_REF --json"
cat "$OUT/find-log.md" >> "$RESULTS"

echo >> "$RESULTS"
echo "## the log: a word nearly every passage holds (the slow case: every passage is scored)" >> "$RESULTS"
hyperfine -N --warmup 0 --runs 2 --export-markdown "$OUT/find-common.md" \
  -n "rg -c items" "rg -c items $LOG" \
  -n "spool search --query items" "$S search --query items $LOG_REF --json"
cat "$OUT/find-common.md" >> "$RESULTS"
cat "$RESULTS"
