#!/usr/bin/env bash
# The consumer suite: what a user installs is what is tested. Packs every publishable package, installs the
# tarballs into a scratch project outside the repository (no workspace links, no `outpost-source` condition,
# none of the monorepo's devDependencies), and runs tools/consumer/project/tests there through what was installed.
#   --no-build      skip `npm run build` (the packages are already built)
#   --reuse <dir>   keep an installed scratch project: repack and reinstall the @outpost tarballs only
#   --no-tests      stop once the project is installed and checked
# Extra arguments after `--` go to vitest (e.g. a test file name).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
here="$repo/tools/consumer"
build=1
tests=1
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --no-tests) tests=0 ;;
    --reuse) work=$2; shift ;;
    --) shift; break ;;
    *) echo "consumer: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$work" ]; then
  # A fresh project (~1.7 GB of CLIs) goes when the run ends; --reuse keeps one for the next run.
  work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/outpost-consumer-XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
case "$work" in "$repo"/*) echo "consumer: $work is inside the repository" >&2; exit 2 ;; esac
started=$(date +%s)
say() { printf 'consumer: %s (+%ss)\n' "$1" "$(( $(date +%s) - started ))"; }

if [ "$build" = 1 ]; then
  say "build"
  (cd "$repo" && npm run build >"$work/build.log" 2>&1) || {
    grep -E "error|Error" "$work/build.log" | head -20
    tail -15 "$work/build.log"
    exit 1
  }
fi

say "pack into $work/tarballs"
rm -rf "$work/tarballs" && mkdir -p "$work/tarballs" "$work/project"
# One npm process packs them all (-w for each package that is not private), and the private cloud doubles the
# Vercel and Daytona tests run against, as a test of a user's would install them.
workspaces=$(cd "$repo" && node -e '
  const { readdirSync, readFileSync } = require("node:fs");
  for (const name of readdirSync("packages")) {
    const manifest = JSON.parse(readFileSync(`packages/${name}/package.json`, "utf8"));
    if (manifest.private !== true || manifest.name === "@outpost/cloud-doubles") console.log(`-w ${manifest.name}`);
  }')
# shellcheck disable=SC2086 # one word per flag and name
(cd "$repo" && npm pack --silent $workspaces --pack-destination "$work/tarballs" >/dev/null)

say "scratch project $work/project"
project="$work/project"
rm -rf "$project/tests" "$project/fixtures"
cp -R "$here/project/." "$project/"
cp -R "$here/fixtures" "$project/fixtures"
node "$here/write-manifest.mjs" "$repo" "$work/tarballs" "$project"
cd "$project"
# A changed tarball keeps its file name: forget the previous install of ours so npm takes the new one.
rm -rf node_modules/@outpost package-lock.json
# Plugins in folders are packed and copied like any tarball (--install-links), not linked.
npm install --prefer-offline --install-links --no-audit --no-fund --loglevel=error
say "installed"
node check-installed.mjs
[ "$tests" = 1 ] || exit 0
say "tests"
# What the tests create (repositories, homes, caches) stays under $work and goes with it.
rm -rf "$work/tmp" && mkdir -p "$work/tmp"
TMPDIR="$work/tmp" npx --no-install vitest run "$@"
say "done"
