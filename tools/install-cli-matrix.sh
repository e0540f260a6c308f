#!/usr/bin/env bash
# Installs every release listed in packages/e2e/cli-matrix/versions.txt (and outside.txt, the releases outside the
# tested range) into its own prefix under the matrix cache (default /var/cache/outpost/cli-matrix/<agent>-<version>),
# never into the lockfile. Already installed
# releases are skipped, so a warm cache costs nothing. The matrix test finds them there.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${OUTPOST_CLI_MATRIX:-/var/cache/outpost/cli-matrix}"
mkdir -p "$cache"
cat "$repo/packages/e2e/cli-matrix/versions.txt" "$repo/packages/e2e/cli-matrix/outside.txt" | grep -Ev '^\s*(#|$)' | while read -r agent package version; do
  prefix="$cache/$agent-$version"
  if [ -f "$prefix/.installed" ]; then echo "cli-matrix: $agent $version already in $prefix"; continue; fi
  echo "cli-matrix: installing $package@$version into $prefix"
  rm -rf "$prefix" && mkdir -p "$prefix"
  # A package.json of its own keeps npm from walking up into a workspace.
  printf '{"name":"outpost-cli-matrix-%s","private":true}\n' "$agent-$version" > "$prefix/package.json"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$package@$version"
  touch "$prefix/.installed"
done
