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
