# Shared by the benches: the tools they need, and the generated log they read.

# Exits 2, naming the package, when hyperfine, ripgrep or GNU time is missing.
need_bench_tools() {
  for tool in hyperfine rg /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "bench: needs $tool (apt-get install hyperfine ripgrep time)" >&2; exit 2; }
  done
}

# make_log FILE SIZE_MB: about SIZE_MB MiB of ~100-byte log lines, one NEEDLE line in every
# 100,000; made once (kept when FILE is already there).
make_log() {
  local file=$1 mb=$2
  [ -s "$file" ] && return 0
  echo "generating $file ..." >&2
  awk -v mb="$mb" 'BEGIN {
    target = mb * 1024 * 1024; n = 0; i = 0
    while (n < target) {
      i++
      if (i % 100000 == 0) line = sprintf("%09d WARN  request id=%d NEEDLE upstream timeout after 30s, retrying with backoff", i, i)
      else line = sprintf("%09d INFO  request id=%d path=/api/v1/items/%d status=200 bytes=%d took=%dms", i, i, i % 977, (i * 37) % 65536, i % 97)
      print line; n += length(line) + 1
    }
  }' > "$file"
}

# make_tree DIR FILES: a tree of code nobody here wrote, committed to git: the first FILES files
# (in path order) of the cargo registry's sources, then of Python's standard library; made once,
# kept while it holds what it was made with (fewer files when the two hold fewer: a machine
# whose registry holds less gives a smaller tree, said in the results).
make_tree() {
  local TREE=$1 FILES=$2
  if [ "$(cat "$TREE/.git/made-for" 2>/dev/null)" != "$FILES $(git -C "$TREE" ls-files 2>/dev/null | wc -l)" ]; then
    echo "making the $FILES-file tree in $TREE ..." >&2
    rm -rf "$TREE"
    mkdir -p "$TREE"
    REGISTRY=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | sed -n 1p)
    STDLIB=$(python3 -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
    python3 - "$TREE" "$FILES" "$REGISTRY" "$STDLIB" <<'PY'
import os, shutil, sys
tree, want, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
taken = 0
for name, src in zip(["crates", "python"], sources):
    files = []
    for d, dirs, fs in os.walk(src):
        dirs[:] = sorted(x for x in dirs if x not in (".git", "__pycache__", "site-packages"))
        files += [os.path.join(d, f) for f in sorted(fs) if not os.path.islink(os.path.join(d, f))]
    for f in files:
        if taken == want:
            break
        dest = os.path.join(tree, name, os.path.relpath(f, src))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(f, dest)
        taken += 1
print(f"{taken} files", file=sys.stderr)
PY
    # Every file tracked, ignore files or not: the tree is the commit.
    git -C "$TREE" init -q
    git -C "$TREE" add -A -f
    git -C "$TREE" -c user.name=bench -c user.email=bench@example.invalid commit -q -m tree
    echo "$FILES $(git -C "$TREE" ls-files | wc -l)" > "$TREE/.git/made-for"
  fi
}
