// POSIX sh scripts run inside the container. They only use sh builtins and tools that both busybox and
// Debian's coreutils/tar/findutils provide, so the provider works on any image with a shell and tar.
// The file-moving scripts are shared: see transfer-scripts in @outpost/plugin-utils.

/**
 * Writes one home file: `$1` home, `$2` path relative to it (normalized by the host), `$3` base64 content.
 * Rule: nothing on the way is followed — a link (parent or the file itself), a parent that is not a
 * directory or a special file at the path is refused with `H<reason>` on stdout (exit 90). Directories end
 * 0700, the file 0600; the file is created with O_EXCL (noclobber), so a link raced in is not written through.
 */
const WRITE_HOME_FILE = `_outpost_refuse() { printf 'H%s' "$1"; exit 90; }
_outpost_write() {
  _outpost_at=$1
  _outpost_rest=$2
  while :; do
    case $_outpost_rest in */*) ;; *) break ;; esac
    _outpost_at=$_outpost_at/\${_outpost_rest%%/*}
    _outpost_rest=\${_outpost_rest#*/}
    [ -L "$_outpost_at" ] && _outpost_refuse "$_outpost_at is a symbolic link"
    if [ -d "$_outpost_at" ]; then
      chmod 700 -- "$_outpost_at" 2>/dev/null || _outpost_refuse "cannot set the mode of $_outpost_at"
    elif [ -e "$_outpost_at" ]; then
      _outpost_refuse "$_outpost_at is not a directory"
    else
      mkdir -m 700 -- "$_outpost_at" 2>/dev/null || _outpost_refuse "cannot create the directory $_outpost_at"
    fi
  done
  _outpost_at=$_outpost_at/$_outpost_rest
  [ -L "$_outpost_at" ] && _outpost_refuse "$_outpost_at is a symbolic link"
  if [ -e "$_outpost_at" ]; then
    [ -f "$_outpost_at" ] || _outpost_refuse "$_outpost_at is not a regular file"
    rm -f -- "$_outpost_at" 2>/dev/null || _outpost_refuse "cannot replace $_outpost_at"
  fi
  (umask 077; set -C; printf %s "$3" | base64 -d > "$_outpost_at") 2>/dev/null || _outpost_refuse "cannot write $_outpost_at"
  chmod 600 -- "$_outpost_at" 2>/dev/null || _outpost_refuse "cannot set the mode of $_outpost_at"
}`;

/**
 * Runs every command. stdin starts with the request (exec-request.ts): a line with its length, then the
 * base64 of shell lines the host quoted — `_outpost_cd`, `_outpost_write` per home file, `export`s, `set --`
 * the command. It is read with single `dd` reads of at most the missing bytes, so not one byte of the
 * command's own stdin behind it is taken. Then a header on stdout before anything else — `P` + 10-digit
 * pid (the exec process leads its own process group), `D` when the directory is missing, `H<reason>` when a
 * home file was refused, `X` when the executable is not found — and the wrapper replaces itself with the
 * command, keeping the pid. Because the command arrives on stdin, the exec can be started ahead of time.
 */
export const COMMAND_WRAPPER = `${WRITE_HOME_FILE}
_outpost_cd() { cd -- "$1" 2>/dev/null || { printf D; exit 126; }; }
IFS= read -r _outpost_size || exit 125
_outpost_request=
while [ "\${#_outpost_request}" -lt "$_outpost_size" ]; do
  _outpost_part=$(dd bs=$((_outpost_size - \${#_outpost_request})) count=1 2>/dev/null)
  [ -n "$_outpost_part" ] || exit 125
  _outpost_request=$_outpost_request$_outpost_part
done
_outpost_request=$(printf %s "$_outpost_request" | base64 -d; printf x)
eval "\${_outpost_request%x}"
unset _outpost_request _outpost_part _outpost_size
command -v -- "$1" >/dev/null 2>&1 || { printf X; exit 127; }
printf 'P%010d' "$$"
exec "$@"`;

/** Header bytes COMMAND_WRAPPER prints on success. */
export const HEADER_BYTES = 11;
