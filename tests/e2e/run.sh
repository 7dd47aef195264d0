#!/usr/bin/env bash
# Every end-to-end suite against the built binary: the official conformance suite (against
# spool serve, and against the real everything server directly and through spool wrap), the
# Python MCP SDK (spool serve, and spool wrap in front of the real filesystem and everything
# servers, each answer checked as each host forwards it), the MCP Inspector CLI. Needs
# `npm install` here and `pip install mcp==2.3.0` first (scripts/test does both). Usage: tests/e2e/run.sh [PATH/TO/spool]
set -uo pipefail
SPOOL=$(realpath "${1:-$(dirname "$0")/../../target/debug/spool}") || exit 1
cd "$(dirname "$0")"
status=0
echo "== conformance suite"; ./conformance.sh "$SPOOL" || status=1
echo "== conformance suite through spool wrap"; ./conformance-wrap.sh "$SPOOL" || status=1
echo "== python sdk"; python3 python_client.py "$SPOOL" || status=1
echo "== spool wrap + filesystem server"; python3 wrap_filesystem.py "$SPOOL" || status=1
echo "== spool wrap + everything server"; python3 wrap_everything.py "$SPOOL" || status=1
echo "== spool wrap + a server that pages its own lists"; python3 wrap_paging.py "$SPOOL" || status=1
echo "== spool wrap relays the client's roots (filesystem server)"; python3 wrap_roots.py "$SPOOL" || status=1
echo "== inspector cli"; ./inspector.sh "$SPOOL" || status=1
echo "== spool ci-log against a GitHub Actions stand-in"; node actions.mjs "$SPOOL" || status=1
if [ "$(id -u)" = 0 ]; then
  echo "== fetch address guard (unshare -n)"; ./guard.sh "$SPOOL" || status=1
else
  echo "NOT RUN: the fetch address guard (a network namespace, unshare -n, needs root)" >&2
fi
exit $status
