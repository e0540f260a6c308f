#!/bin/sh
# Builds the Docker images the Outpost tests use, with no registry (none is reachable here):
#   outpost-busybox:<hash> (+ :latest)  Debian's busybox-static, `docker import`ed (~2 MB)
#   outpost-test:<hash>    (+ :latest)  debootstrap minbase bookworm + git + ca-certificates + procps
#                                       + the host's /usr/bin/node (glibc, node, git: agent CLIs run in it)
# Each tag is a content hash of the inputs; an image whose tag already exists is not rebuilt.
# The debootstrap tree and the downloaded .debs are cached under $OUTPOST_IMAGE_CACHE
# (default /var/cache/outpost) so a rebuild after an input change is fast.
# Needs: root, docker (a running engine), debootstrap, busybox-static, sha256sum, tar.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
files="$here/docker-image"
cache=${OUTPOST_IMAGE_CACHE:-/var/cache/outpost}
docker=${DOCKER:-docker}
busybox_binary=${OUTPOST_BUSYBOX:-/bin/busybox}
node_binary=${OUTPOST_NODE:-/usr/bin/node}
mirror=${OUTPOST_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
packages=git,ca-certificates,procps

fail() { echo "build-test-image: $*" >&2; exit 1; }

command -v "$docker" >/dev/null || fail "docker client not found: apt-get install -y docker.io"
"$docker" info >/dev/null 2>&1 || fail "no Docker engine reachable: start dockerd and wait for /var/run/docker.sock"
[ -x "$busybox_binary" ] || fail "$busybox_binary missing: apt-get install -y busybox-static"
file_type=$(od -An -c -N4 "$busybox_binary" | tr -d ' ')
[ "$file_type" = "177ELF" ] || fail "$busybox_binary is not an ELF binary"
[ -x "$node_binary" ] || fail "$node_binary missing: install Node 20 on the host"

# Hash of file contents only (not of their paths), so the script may be called by any path.
content_hash() { for file in "$@"; do sha256sum < "$file"; done; }
image_exists() { "$docker" image inspect "$1" >/dev/null 2>&1; }

# One build at a time per cache (CI and a developer, or two test runs, may start it together).
mkdir -p "$cache"
if command -v flock >/dev/null; then
  exec 9>"$cache/.build.lock"
  flock 9
fi

# --- busybox image -------------------------------------------------------------------------
busybox_hash=$(content_hash "$0" "$busybox_binary" "$files"/passwd "$files"/group | sha256sum | cut -c1-12)
busybox_image="outpost-busybox:$busybox_hash"
if image_exists "$busybox_image"; then
  echo "build-test-image: $busybox_image exists, skipping" >&2
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/bin" "$work/etc" "$work/tmp" "$work/home" "$work/proc" "$work/sys" "$work/dev" "$work/workspace"
  chmod 1777 "$work/tmp"
  cp "$busybox_binary" "$work/bin/busybox"
  for applet in $("$busybox_binary" --list); do
    [ "$applet" = busybox ] || ln -s busybox "$work/bin/$applet"
  done
  cp "$files/passwd" "$files/group" "$work/etc/"
  tar -C "$work" -c . | "$docker" import \
    --change 'ENV PATH=/bin' --change 'CMD ["/bin/sh"]' - "$busybox_image" >/dev/null
  rm -rf "$work"
  trap - EXIT
fi
"$docker" tag "$busybox_image" outpost-busybox:latest

# --- outpost-test image (debootstrap) ------------------------------------------------------
test_hash=$( { content_hash "$0" "$node_binary" "$files"/passwd "$files"/group "$files"/gitconfig; echo "$suite $packages"; } \
  | sha256sum | cut -c1-12)
test_image="outpost-test:$test_hash"
if image_exists "$test_image"; then
  echo "build-test-image: $test_image exists, skipping" >&2
else
  tree_key=$(echo "$suite minbase $packages" | sha256sum | cut -c1-12)
  tree="$cache/rootfs/$suite-$tree_key"
  mkdir -p "$cache/debs"
  if [ ! -f "$tree/.outpost-complete" ]; then
    rm -rf "$tree"
    mkdir -p "$tree"
    echo "build-test-image: debootstrap $suite into $tree (about 30 s)" >&2
    debootstrap --variant=minbase --include="$packages" --cache-dir="$cache/debs" "$suite" "$tree" "$mirror" >&2 \
      || fail "debootstrap failed (see above); is $mirror reachable?"
    touch "$tree/.outpost-complete"
  fi
  cp "$node_binary" "$tree/usr/local/bin/node"
  # The tree is shared across builds; the account files are rewritten each time from the inputs.
  grep -v '^outpost:' "$tree/etc/passwd" > "$tree/etc/passwd.new" || true
  grep '^outpost:' "$files/passwd" >> "$tree/etc/passwd.new"
  mv "$tree/etc/passwd.new" "$tree/etc/passwd"
  grep -v '^outpost:' "$tree/etc/group" > "$tree/etc/group.new" || true
  grep '^outpost:' "$files/group" >> "$tree/etc/group.new"
  mv "$tree/etc/group.new" "$tree/etc/group"
  cp "$files/gitconfig" "$tree/etc/gitconfig"
  mkdir -p "$tree/workspace"
  tar -C "$tree" -c --exclude=./.outpost-complete --exclude='./var/cache/apt/archives/*.deb' \
      --exclude='./var/lib/apt/lists/*' --exclude=./proc --exclude=./sys --exclude=./dev . \
    | "$docker" import \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' - "$test_image" >/dev/null
fi
"$docker" tag "$test_image" outpost-test:latest

# Drop tags of earlier builds (an image still used by a container stays: rmi refuses it).
for repository in outpost-busybox outpost-test; do
  "$docker" image ls --format '{{.Repository}}:{{.Tag}}' "$repository" | while read -r old; do
    case "$old" in "$busybox_image" | "$test_image" | *:latest) ;; *) "$docker" rmi "$old" >/dev/null 2>&1 || true ;; esac
  done
done

echo "$busybox_image"
echo "outpost-busybox:latest"
echo "$test_image"
echo "outpost-test:latest"
