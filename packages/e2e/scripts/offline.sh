#!/usr/bin/env bash
# Runs a command (default: the agents e2e suite) in a network namespace of its own: only loopback exists,
# /etc/resolv.conf points at a DNS sinkhole on 127.0.0.1:53 whose log must stay empty. The model server the
# tests start lives inside the same namespace. Needs root (or CAP_SYS_ADMIN) for unshare and mount.
#   packages/e2e/scripts/offline.sh                       # agents e2e
#   packages/e2e/scripts/offline.sh npx vitest run --project e2e tests/agents/claude.test.ts
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"

if [ -z "${OUTPOST_OFFLINE_INNER:-}" ]; then
  exec unshare --net --mount --propagation private env OUTPOST_OFFLINE_INNER=1 "$0" "$@"
fi

ip link set lo up
work="$(mktemp -d /tmp/outpost-offline.XXXXXX)"
printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:1\n' > "$work/resolv.conf"
mount --bind "$work/resolv.conf" /etc/resolv.conf

node "$here/dns-sinkhole.mjs" "$work/dns.log" > "$work/sinkhole.out" 2>&1 &
sinkhole=$!
trap 'kill "$sinkhole" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do grep -q ready "$work/sinkhole.out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$work/sinkhole.out" || { echo "offline.sh: the DNS sinkhole did not start" >&2; cat "$work/sinkhole.out" >&2; exit 1; }

export OUTPOST_OFFLINE_NAMESPACE=1
export OUTPOST_DNS_LOG="$work/dns.log"
cd "$repo"
if [ "$#" -eq 0 ]; then set -- npx vitest run --project e2e packages/e2e/tests/agents; fi
status=0
"$@" || status=$?
if [ -s "$work/dns.log" ]; then
  echo "offline.sh: something tried to resolve a host name:" >&2
  cat "$work/dns.log" >&2
  [ "$status" -eq 0 ] && status=1
fi
exit "$status"
