#!/usr/bin/env bash
# The repository map (issue 15), side by side in one run with Universal Ctags on one tree:
#   a 20,000-file tree of code nobody here wrote, committed to git: the crates cargo downloaded
#   for this workspace (Rust, and the C of vendored libraries and grammars), topped up with the
#   Python standard library;
#   - spool map, cold: an empty store, every file read and parsed (peak RSS too)
#   - spool map of the unchanged tree: the stored map again
#   - spool map after one file changed: that file parsed, the rest from the parse cache, ranked
#     and written again
#   - ctags -R (Universal Ctags, Debian's universal-ctags) of the same tree (peak RSS too)
# Needs hyperfine, GNU time and universal-ctags (apt-get install hyperfine time universal-ctags).
# FILES=N for another size. Results go to bench/out/map.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
FILES=${FILES:-20000}
RUNS=${RUNS:-5}
OUT=bench/out
mkdir -p "$OUT"
for tool in hyperfine /usr/bin/time ctags git python3; do
  command -v "$tool" >/dev/null || { echo "bench: needs $tool (apt-get install hyperfine time universal-ctags git)" >&2; exit 2; }
done
ctags --version | grep -q 'Universal Ctags' || { echo "bench: ctags is not Universal Ctags" >&2; exit 2; }
cargo build --release -q -p spool-tools
S=$PWD/target/release/spool
TREE=$PWD/$OUT/tree-$FILES
export SPOOL_HOME=$PWD/$OUT/map-home
RESULTS=$OUT/map.md

make_tree "$TREE" "$FILES"
COUNT=$(git -C "$TREE" ls-files | wc -l)
SIZE=$(du -sh --exclude=.git "$TREE" | cut -f1)
CHANGED=$(git -C "$TREE" ls-files '*.rs' | sed -n 1p)

rss() { { /usr/bin/time -f %M "$@" > /dev/null; } 2>&1 | tail -1; }
{
  echo "# the repository map ($(date -u +%F), $(nproc) cores)"
  echo
  echo "tree: $COUNT files, $SIZE, in git ($(cd "$TREE" && git ls-files | sed 's/.*\.//' | sort | uniq -c | sort -rn | sed -n 1,5p | awk '{printf "%s%s .%s", sep, $1, $2; sep=", "}'))"
  echo
  echo "## peak RSS"
  echo
  echo "| what | peak RSS |"
  echo "| --- | ---: |"
} > "$RESULTS"
rm -rf "$SPOOL_HOME"
printf '| spool map, cold | %s MiB |\n' "$(( $(rss "$S" map "$TREE" --json) / 1024 ))" >> "$RESULTS"
# What the cold map covered within its time budget (30 s: three times a directory search's).
rm -rf "$SPOOL_HOME"
COLD=$("$S" map "$TREE" --json | python3 -c 'import json,sys; s=json.load(sys.stdin)["scope"]; print(s["files_mapped"], s["files_skipped"].get("not_parsed", 0))')
echo '// bench' >> "$TREE/$CHANGED"
printf '| spool map, one file changed | %s MiB |\n' "$(( $(rss "$S" map "$TREE" --json) / 1024 ))" >> "$RESULTS"
printf '| ctags -R | %s MiB |\n' "$(( $(rss ctags -R -f "$OUT/tags" "$TREE") / 1024 ))" >> "$RESULTS"
"$S" map "$TREE" > "$OUT/map-first-page.txt"
sed -n '1,4s/^/    /p' "$OUT/map-first-page.txt" >> "$RESULTS"
echo >> "$RESULTS"

echo >> "$RESULTS"
echo "cold, within the budget: $(echo "$COLD" | cut -d' ' -f1) files mapped, $(echo "$COLD" | cut -d' ' -f2) not parsed in time (the next map parses them)" >> "$RESULTS"
echo >> "$RESULTS"
echo "## time" >> "$RESULTS"
# One prepare a command, in order: the cold map starts from an empty store; the changed map
# after a line is added to one file (its content changes: it is parsed again).
hyperfine -N --warmup 1 --runs "$RUNS" --export-markdown "$OUT/map-time.md" \
  --prepare "rm -rf $SPOOL_HOME" --prepare "true" \
  --prepare "sh -c 'echo // bench >> $TREE/$CHANGED'" --prepare "true" \
  -n "spool map, cold (empty store)" -n "spool map, unchanged tree (stored map)" \
  -n "spool map, one file changed (parse cache)" -n "ctags -R" \
  "$S map $TREE --json" "$S map $TREE --json" "$S map $TREE --json" \
  "ctags -R -f $OUT/tags $TREE"
cat "$OUT/map-time.md" >> "$RESULTS"
cat "$RESULTS"
