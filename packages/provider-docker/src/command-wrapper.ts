// POSIX sh scripts run inside the container. They only use sh builtins and tools that both busybox and
// Debian's coreutils/tar/findutils provide, so the provider works on any image with a shell and tar.
// The file-moving scripts are shared: see transfer-scripts in @outpost/plugin-utils.

/**
 * Runs every command: `$1` directory, `$2…` the command. Prints a header on stdout before anything else —
 * `P` + 10-digit pid (the exec process leads its own process group), `D` when the directory is missing,
 * `X` when the executable is not found — then replaces itself with the command, keeping the pid.
 */
export const COMMAND_WRAPPER = `cd -- "$1" 2>/dev/null || { printf D; exit 126; }
shift
command -v -- "$1" >/dev/null 2>&1 || { printf X; exit 127; }
printf 'P%010d' "$$"
exec "$@"`;

/** Header bytes COMMAND_WRAPPER prints on success. */
export const HEADER_BYTES = 11;
