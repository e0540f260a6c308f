// POSIX sh scripts every remote or container provider runs inside its sandbox to move files. They only use
// sh builtins and tools that both busybox and GNU coreutils/tar/findutils provide, so any image with a
// shell and tar works. Exit codes 90-99 are refusals `sandboxRefusal` turns into `workspace` errors.

/**
 * Kills the tree of process group \`$1\`: stops the group and every descendant (found through
 * /proc/<pid>/stat, so children that left the group are caught) until the set stops growing, then SIGKILLs.
 */
export const KILL_TREE = `leader=$1
kill -STOP -"$leader" 2>/dev/null
found=" $leader "
grew=1
while [ "$grew" = 1 ]; do
  grew=0
  for stat in /proc/[0-9]*/stat; do
    { read -r line < "$stat"; } 2>/dev/null || continue
    pid=\${stat#/proc/}; pid=\${pid%/stat}
    case "$found" in *" $pid "*) continue ;; esac
    rest=\${line##*) }
    set -- $rest
    case "$found" in *" $2 "*) ;; *) [ "$3" = "$leader" ] || continue ;; esac
    found="$found$pid "
    kill -STOP "$pid" 2>/dev/null
    grew=1
  done
done
kill -KILL -"$leader" 2>/dev/null
kill -KILL $found 2>/dev/null
exit 0`;

/**
 * Shared check: refuses (exit 90) when the existing part of path \`$1\` resolves outside anchor \`$2\`
 * through a link. "/" as anchor accepts anything. A directory resolves with the shell's own \`cd -P\` in a
 * subshell (a fork, no program to start: this runs before every transfer), anything else with \`readlink -f\`.
 */
const CHECK_ANCHOR = `resolve() {
  [ -d "$1" ] && resolved=$(cd -P -- "$1" 2>/dev/null && pwd -P) && return 0
  resolved=$(readlink -f -- "$1") || resolved=$2
}
check_anchor() {
  [ "$2" = / ] && return 0
  probe=$1
  while [ ! -e "$probe" ] && [ ! -L "$probe" ]; do
    case $probe in */*) probe=\${probe%/*}; probe=\${probe:-/} ;; *) probe=. ;; esac
  done
  resolve "$probe" ""; real=$resolved
  resolve "$2" "$2"; anchor=$resolved
  case "$real/" in "$anchor"/*) return 0 ;; esac
  echo "$1 is reached through a link that leaves $2" >&2
  exit 90
}`;

/**
 * Upload: \`$1\` destination directory, \`$2\` anchor. stdin: lines \`D<path>\` (directories of the
 * archive, refused when an existing link there leads outside the destination), \`V<path>\` (files whose SHA-256 is printed after
 * extraction), an empty line, then the tar stream.
 */
export const EXTRACT_TAR = `${CHECK_ANCHOR}
umask 0
check_anchor "$1" "$2"
mkdir -p -- "$1" || exit 95
cd -- "$1" || exit 95
base=$(pwd -P)
verify=
while IFS= read -r line; do
  [ -z "$line" ] && break
  path=\${line#?}
  case "$line" in
    D*) if [ -L "$path" ]; then
          real=$(readlink -f -- "$path") || real=
          case "$real/" in "$base"/*) ;; *) echo "$1/$path is a link that leads outside the destination" >&2; exit 91 ;; esac
        fi ;;
    V*) verify="$verify$path
" ;;
  esac
done
tar -x -f - || exit 96
[ -z "$verify" ] && exit 0
printf %s "$verify" | tr '\\n' '\\0' | xargs -0 sha256sum --`;

/**
 * Download: \`$1\` source, \`$2\` anchor, \`$3\` archive file (\`-\`: stdout, right after the marker). Prints
 * \`d\` or \`f\` (the source's kind) and writes a tar of the directory's contents or of the single file.
 * A provider whose command output is text (no binary stdout) names a file and reads it through its file API.
 */
export const CREATE_TAR = `${CHECK_ANCHOR}
[ -e "$1" ] || { echo "$1 does not exist" >&2; exit 92; }
check_anchor "$1" "$2"
if [ -d "$1" ]; then
  cd -- "$1" || exit 92
  printf d
  exec tar -c -f "$3" .
fi
cd -- "$(dirname -- "$1")" || exit 92
printf f
exec tar -c -f "$3" -- "./$(basename -- "$1")"`;

/** Batch download: \`$1\` source directory, \`$2\` archive file (\`-\`: stdout), \`$3…\` the \`./<path>\` entries (busybox tar has no -T). */
export const CREATE_TAR_OF_LIST = `cd -- "$1" 2>/dev/null || { echo "$1 does not exist" >&2; exit 92; }
archive=$2
shift 2
exec tar -c -f "$archive" -- "$@"`;

/**
 * Manifest: \`$1\` source, \`$2…\` relative paths. Refuses missing paths (92), paths reached through a
 * link (93), and special files or names with a newline (94). Prints \`S|<mode>|<size>|<path>\` for
 * files, \`L|<path>\` + a line \`T<target>\` for links, then \`--\` and one sha256sum line per file.
 * Each pass reads every file's metadata, which costs on an overlay file system: GNU find lists everything
 * in one pass (-printf); a find without it (busybox) takes the portable passes.
 */
export const MANIFEST = `cd -P -- "$1" 2>/dev/null || { echo "$1 does not exist" >&2; exit 92; }
shift
root=$PWD
newline='
'
# Builtins only in this loop (cd -P sets PWD to the physical path): no process per named path, and one
# check per parent directory (git lists the paths of a directory together).
checked=
for path in "$@"; do
  [ -e "$path" ] || [ -L "$path" ] || { echo "$path does not exist" >&2; exit 92; }
  parent=\${path%/*}
  [ "$parent" = "$path" ] && parent=.
  [ "$parent" = "$checked" ] && continue
  cd -P -- "$parent" 2>/dev/null || { echo "$path is reached through a link" >&2; exit 93; }
  checked=$parent
  parent=\${parent#.}; parent=\${parent#/}
  [ -z "$parent" ] && expect=$root || expect=$root/$parent
  [ "$PWD" = "$expect" ] || { echo "$path is reached through a link" >&2; exit 93; }
  cd -- "$root" || exit 92
done
odd() { echo "$1: special files (socket, pipe, device) and names with a newline cannot be listed" >&2; exit 94; }
if listing=$(find "$@" \\( -name "*$newline*" -o ! \\( -type f -o -type l -o -type d \\) \\) -printf 'X|%p\\n' \\
    -o -type f -printf 'S|%m|%s|%p\\n' -o -type l -printf 'L|%p\\nT%l\\n' 2>/dev/null); then
  # A target line starts with T, so an X line is always find's own.
  case "$listing" in "X|"*|*"\${newline}X|"*) odd "$(printf '%s\\n' "$listing" | sed -n 's/^X|//p')" ;; esac
  [ -z "$listing" ] || printf '%s\\n' "$listing"
else
  found=$(find "$@" \\( ! -type f ! -type l ! -type d \\) -o -name "*$newline*")
  [ -z "$found" ] || odd "$found"
  find "$@" -type f -exec stat -c 'S|%a|%s|%n' -- {} +
  find "$@" -type l -exec sh -c 'for link; do printf "L|%s\\nT" "$link"; readlink -- "$link"; done' sh {} +
fi
echo --
find "$@" -type f -exec sha256sum -- {} +`;
