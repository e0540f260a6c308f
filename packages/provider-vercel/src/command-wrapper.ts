// POSIX sh scripts run inside the sandbox. They only use sh builtins and tools that both busybox and
// GNU coreutils/tar/findutils provide, so the provider works on any image with a shell and tar.
// The file-moving scripts are shared: see transfer-scripts in @outpost/plugin-utils.

/**
 * Runs every command: `$1` directory, `$2` input directory (`-`: no stdin), `$3…` the command. Prints a
 * header on stdout before anything else — `P` + 10-digit pid, `D` when the directory is missing, `X` when
 * the executable is not found. Vercel commands have no stdin channel: the host writes stdin as numbered
 * frames into the input directory (`<n>` then its marker `<n>.ok`, `end` after the last), and a reader
 * feeds them in order through a FIFO. Without input the wrapper replaces itself with the command.
 */
export const COMMAND_WRAPPER = `cd -- "$1" 2>/dev/null || { printf D; exit 126; }
input=$2
shift 2
command -v -- "$1" >/dev/null 2>&1 || { printf X; exit 127; }
printf 'P%010d' "$$"
[ "$input" = - ] && exec "$@" </dev/null
mkdir -p -- "$input" && rm -f -- "$input/fifo" && mkfifo -- "$input/fifo" || exit 125
(
  n=0
  while :; do
    if [ -e "$input/$n.ok" ]; then
      cat -- "$input/$n" || exit 0
      rm -f -- "$input/$n" "$input/$n.ok"
      n=$((n+1))
    elif [ -e "$input/end" ]; then
      [ -e "$input/$n.ok" ] || break
    else
      sleep 0.02 2>/dev/null || sleep 1
    fi
  done
) >"$input/fifo" &
reader=$!
"$@" <"$input/fifo"
status=$?
kill "$reader" 2>/dev/null
rm -rf -- "$input"
exit "$status"`;

/** Header bytes COMMAND_WRAPPER prints on success. */
export const HEADER_BYTES = 11;
