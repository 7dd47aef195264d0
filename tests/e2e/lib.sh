# Shared by the e2e scripts (sourced, not run).

# Prints the URL `spool serve --http` announced on stderr (in file $1), waiting up to 5 s.
wait_for_url() {
  local log=$1 url=""
  for _ in $(seq 1 50); do
    url=$(sed -n 's/.*serving MCP at \(http:[^ ]*\).*/\1/p' "$log" | head -1)
    [ -n "$url" ] && break
    sleep 0.1
  done
  printf '%s' "$url"
}
