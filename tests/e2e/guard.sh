#!/usr/bin/env bash
# The fetch address guard against every entry of the IANA IPv4 and IPv6 special-purpose
# registries (and multicast, and IPv6 forms carrying such IPv4 addresses), run inside a network
# namespace with no route out (`unshare -n`, TESTING.md): a refused address answers `forbidden`
# (exit 5); one the guard missed would answer `unavailable` (exit 7, network unreachable), and
# no packet can leave either way. Usage: guard.sh SPOOL
set -uo pipefail
SPOOL=$(realpath "$1") || exit 1
unshare -n true 2>/dev/null || { echo "guard: needs unshare -n (root): cannot run"; exit 1; }
export SPOOL_HOME=$(mktemp -d)
trap 'rm -rf "$SPOOL_HOME"' EXIT
tried=0; refused=0; missed=()
for host in 0.0.0.1 10.0.0.1 100.64.0.1 127.0.0.1 169.254.169.254 172.16.0.1 192.0.0.1 192.0.0.9 \
  192.0.0.170 192.0.2.1 192.31.196.1 192.52.193.1 192.88.99.1 192.168.0.1 192.175.48.1 198.18.0.1 \
  198.19.255.254 198.51.100.1 203.0.113.1 224.0.0.1 239.255.255.250 240.0.0.1 255.255.255.255 \
  '[::1]' '[::]' '[100::1]' '[100:0:0:1::1]' '[2001::1]' '[2001:2::1]' '[2001:db8::1]' \
  '[2620:4f:8000::1]' '[3fff::1]' '[5f00::1]' '[fc00::1]' '[fd12:3456::1]' '[fe80::1]' '[fec0::1]' \
  '[ff02::1]' '[::ffff:127.0.0.1]' '[::ffff:198.18.0.1]' '[64:ff9b::a00:1]' '[64:ff9b:1::c0a8:101]' \
  '[2002:c612:1::]' '[::127.0.0.1]' localhost; do
  tried=$((tried + 1))
  unshare -n "$SPOOL" fetch "http://$host/" > /dev/null 2>&1
  code=$?
  if [ "$code" = 5 ]; then refused=$((refused + 1)); else missed+=("$host (exit $code)"); fi
done
echo "guard: $tried special-purpose addresses tried, $refused refused"
if [ ${#missed[@]} -gt 0 ]; then
  printf 'guard: not refused: %s\n' "${missed[@]}"
  exit 1
fi
