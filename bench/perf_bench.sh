#!/usr/bin/env bash
# Performance near the floor (issue 18), side by side in one run, on one generated log of
# SIZE_MB MiB (default 256) and a 20,000-file git repository:
#   a 100-line window at 90% depth   spool read REF --lines     vs  sed -n 'A,Bp;Bq' FILE
#   search of the whole artifact     spool search -F WORD REF   vs  rg -c WORD FILE, on three
#                                    shapes: short lines with few hits, short lines every one a
#                                    hit, long lines (~120 KB) with few hits
#   capture                          spool run -- cat FILE      vs  cat FILE > f && sync f
#   capture with the store at quota  the same, SPOOL_QUOTA below what the store holds
#   the first read of a file         spool read FILE            vs  cp FILE f && sync f
#   the same on XFS with reflink     spool read FILE            vs  cp --reflink=never and
#                                    cp --reflink=always (root and xfsprogs; else not run)
#   directory search                 spool search -F WORD DIR   vs  rg -c WORD DIR (a first
#                                    search: once with an empty store each run, once with a
#                                    store in use whose stored hit lists are forgotten)
# plus peak RSS of the capture. Each row runs its two commands in turn, round after round
# (bench/interleave.py, RUNS rounds after two of warm-up): a host whose speed drifts slows both
# alike. Needs python3, ripgrep, GNU time, git and sqlite3 (apt-get install ripgrep time git
# sqlite3). Results go to bench/out/perf.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
SIZE_MB=${SIZE_MB:-256}
RUNS=${RUNS:-10}
OUT=$PWD/bench/out
mkdir -p "$OUT"
need_bench_tools
cargo build --release -q -p spool-tools
S=$PWD/target/release/spool
LOG=$OUT/big-${SIZE_MB}m.txt
make_log "$LOG" "$SIZE_MB"
LONG=$OUT/long-${SIZE_MB}m.txt
# Long lines: ~120 KB of `"keyN":value` pairs each, one line in 50 with NEEDLE.
[ -s "$LONG" ] || awk -v mb="$SIZE_MB" 'BEGIN {
  srand(1); target = mb * 1024 * 1024; n = 0; l = 0
  while (n < target) {
    line = ""; l++
    for (i = 0; i < 8000; i++) line = line sprintf("\"key%d\":%d,", i, int(rand() * 100000))
    if (l % 50 == 0) line = line "\"NEEDLE\":1"
    print line; n += length(line) + 1
  }
}' > "$LONG"
TREE=$OUT/tree-20000
make_tree "$TREE" 20000
HOME_DIR=$OUT/perf-home
export SPOOL_HOME=$HOME_DIR
RESULTS=$OUT/perf.md
ref_of() { sed -n 's/^  "ref": "\(sp_[a-z0-9]*\)".*/\1/p' | head -1; }
rss() { { /usr/bin/time -f %M "$@" > /dev/null; } 2>&1 | tail -1; }

rm -rf "$HOME_DIR"
REF=$("$S" run --json -- cat "$LOG" | ref_of)
LONG_REF=$("$S" run --json -- cat "$LONG" | ref_of)
LINES=$(wc -l < "$LOG")
WIN=$(( LINES * 90 / 100 ))
WEND=$(( WIN + 99 ))
SCRATCH=$OUT/perf-scratch
{
  echo "# performance near the floor ($(date -u +%F), $(nproc) cores)"
  echo
  echo "log: $(du -h "$LOG" | cut -f1), $LINES lines; long lines: $(du -h "$LONG" | cut -f1), $(wc -l < "$LONG") lines; tree: $(git -C "$TREE" ls-files | wc -l) files in git"
  echo
  echo "Each row: the two commands in turn, round after round (bench/interleave.py), medians; CPU is the mean of user + system."
  echo
  echo "| what | spool | beside it | spool's time ÷ theirs | CPU, spool / theirs |"
  echo "| --- | ---: | ---: | ---: | ---: |"
} > "$RESULTS"
# row NAME OTHER_NAME ROUNDS PREP OTHER_COMMAND SPOOL_COMMAND: the two commands interleaved
# (PREP, if not empty, before each run of each), a row of medians.
row() {
  local json="$OUT/p-$(echo "$1" | tr -c 'a-z0-9' '-').json"
  N="$3" PREP="$4" JSON="$json" python3 bench/interleave.py "$5" "$6" > /dev/null
  python3 - "$json" "$1" "$2" >> "$RESULTS" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
other, spool = r
print("| %s | %.1f ms | %s %.1f ms | %.2fx | %.0f / %.0f ms |" % (
    sys.argv[2], spool["median"], sys.argv[3], other["median"],
    spool["median"] / other["median"], spool["cpu"], other["cpu"]))
PY
}

row "100-line window at line $WIN" "sed -n" $(( RUNS * 2 )) "" \
  "sed -n '${WIN},${WEND}p;${WEND}q' $LOG" "$S read $REF --lines $WIN:$WEND"

for shape in "NEEDLE $LOG $REF few-hits" "status=200 $LOG $REF every-line" "NEEDLE $LONG $LONG_REF long-lines"; do
  set -- $shape
  row "search of the artifact ($4)" "rg -c" "$RUNS" "" "rg -c -F $1 $2" "$S search -F $1 $3 --json"
done

row "capture" "cat > f && sync f" "$RUNS" "rm -rf $HOME_DIR-capture $SCRATCH; sync" \
  "cat $LOG > $SCRATCH && sync $SCRATCH" "SPOOL_HOME=$HOME_DIR-capture $S run -- cat $LOG > /dev/null"

# At quota: the store already holds two captures of the log, last read an hour ago (a store
# never evicts what was made or read in the last 30 s), and may hold about one and a half:
# the capture must evict both.
QUOTA=$(( SIZE_MB * 1024 * 1024 * 3 / 2 ))
AGED="UPDATE artifacts SET last_read_at = last_read_at - 3600000, created_at = created_at - 3600000"
row "capture, store at its quota" "cat > f && sync f" "$RUNS" \
  "rm -rf $HOME_DIR-quota $SCRATCH; for i in 1 2; do SPOOL_HOME=$HOME_DIR-quota $S run -- cat $LOG > /dev/null; done; sqlite3 $HOME_DIR-quota/store-v1/meta.sqlite '$AGED'; sync" \
  "cat $LOG > $SCRATCH && sync $SCRATCH" \
  "SPOOL_HOME=$HOME_DIR-quota SPOOL_QUOTA=$QUOTA $S run -- cat $LOG > /dev/null"

row "first read of a file" "cp && sync" "$RUNS" "rm -rf $HOME_DIR-read $SCRATCH; sync" \
  "cp $LOG $SCRATCH && sync $SCRATCH" "SPOOL_HOME=$HOME_DIR-read $S read $LOG > /dev/null"

row "directory search, 20,000 files, a new store each run" "rg -c" "$RUNS" "rm -rf $HOME_DIR-tree" \
  "rg -c unsafe $TREE" "SPOOL_HOME=$HOME_DIR-tree $S search -F unsafe $TREE --json"

# The first read on a filesystem whose files share blocks (reflink): an XFS image on a loop
# device, when this host lets one be mounted (root, xfsprogs), else a line says it was not run.
XFS_IMG=$OUT/reflink-xfs.img
XFS=$OUT/reflink-xfs
unmount_xfs() {
  if mountpoint -q "$XFS"; then umount "$XFS" || umount -l "$XFS" || true; fi
  rm -f "$XFS_IMG"
}
mkdir -p "$XFS"
unmount_xfs
if command -v mkfs.xfs > /dev/null && truncate -s $(( SIZE_MB * 3 + 400 ))M "$XFS_IMG" &&
  mkfs.xfs -q -f -m reflink=1 "$XFS_IMG" && mount -o loop "$XFS_IMG" "$XFS" 2> /dev/null; then
  trap unmount_xfs EXIT
  cp "$LOG" "$XFS/log.txt" || exit 1
  sync
  row "first read of a file on XFS (reflink)" "cp --reflink=never && sync" "$RUNS" \
    "rm -rf $XFS/home $XFS/copy; sync" \
    "cp --reflink=never $XFS/log.txt $XFS/copy && sync $XFS/copy" \
    "SPOOL_HOME=$XFS/home $S read $XFS/log.txt > /dev/null"
  row "first read of a file on XFS (reflink), beside a clone" "cp --reflink=always && sync" "$RUNS" \
    "rm -rf $XFS/home $XFS/copy; sync" \
    "cp --reflink=always $XFS/log.txt $XFS/copy && sync $XFS/copy" \
    "SPOOL_HOME=$XFS/home $S read $XFS/log.txt > /dev/null"
  unmount_xfs
  trap - EXIT
else
  echo "| first read of a file on XFS (reflink) | not run: no XFS image could be mounted here | | | |" >> "$RESULTS"
  rm -f "$XFS_IMG"
fi

# The same search in a store in use: its stored hit lists are forgotten before each run (so
# none is reused), the store itself is not made again.
rm -rf "$HOME_DIR-tree"
env SPOOL_HOME="$HOME_DIR-tree" "$S" search -F unsafe "$TREE" --json > /dev/null
FORGET="DELETE FROM artifacts WHERE dedup_key LIKE 'tree:%'"
row "directory search, 20,000 files, a store in use" "rg -c" "$RUNS" \
  "sqlite3 $HOME_DIR-tree/store-v1/meta.sqlite \"$FORGET\"" \
  "rg -c unsafe $TREE" "SPOOL_HOME=$HOME_DIR-tree $S search -F unsafe $TREE --json"

rm -rf "$HOME_DIR-capture"
echo >> "$RESULTS"
echo "peak RSS: spool run -- cat (the log) $(rss env SPOOL_HOME="$HOME_DIR-capture" "$S" run -- cat "$LOG") KiB; cat $(rss cat "$LOG") KiB" >> "$RESULTS"
rm -rf "$HOME_DIR-capture" "$HOME_DIR-quota" "$HOME_DIR-read" "$HOME_DIR-tree" "$SCRATCH"
cat "$RESULTS"
