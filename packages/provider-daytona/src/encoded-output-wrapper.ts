/**
 * Runs `$3…` with its stdout and stderr in files (`$1.o`, `$1.e`) and relays them as hex lines, so the
 * output survives the daemon's session logs, which label output line by line: they add a newline to a last
 * line without one and lose NUL bytes (the daemon's shell labelers read the command's FIFOs with `read -r`).
 * Each line is `o<offset>:<hex>` or `e<offset>:<hex>` (at most 32 KiB of output, so lines stay short), and
 * the last is `s<status>:<stdout bytes>:<stderr bytes>`: the host knows when it has everything and where a
 * gap is. `$2` is `live` or `end`. Live: a background pump relays the files while the command runs (checking
 * every 5–50 ms) and writes the trailer once the parent saw the command end (and woke it). End (nobody follows
 * the output): the files are relayed once the command ended, with no pump and no polling. In both, the
 * command's pid is in `$1.pid` while it runs, so a deadline or an abort can end its tree (KILL_BY_PID_FILE).
 * The files live in the lease's scratch; processes the command left running keep writing to them after the
 * trailer, as they would to a closed pipe. They are removed in the background, off the output (the session
 * answers once every holder of the command's output closed it), so the command's answer does not wait for it.
 */
export const ENCODED_OUTPUT_WRAPPER = `base=$1
mode=$2
shift 2
o=0; e=0
emit() {
  [ -s "$base.$1" ] || return 0
  eval "off=\\$$1"
  size=$(wc -c <"$base.$1") || return 0
  size=$((size))
  while [ "$off" -lt "$size" ]; do
    n=$((size - off)); [ "$n" -gt 32768 ] && n=32768
    printf '%s%s:' "$1" "$off"
    if [ "$off" = 0 ] && [ "$n" = "$size" ]; then
      od -An -v -tx1 "$base.$1" | tr -d ' \\n'
    else
      tail -c +"$((off + 1))" "$base.$1" | head -c "$n" | od -An -v -tx1 | tr -d ' \\n'
    fi
    echo
    off=$((off + n))
  done
  eval "$1=\\$off"
}
if [ "$mode" = end ]; then
  "$@" >"$base.o" 2>"$base.e" </dev/null &
  pid=$!
  echo "$pid" >"$base.pid"
  wait "$pid"
  status=$?
  emit o; emit e
  echo "s$status:$o:$e"
  rm -f "$base.o" "$base.e" "$base.pid" </dev/null >/dev/null 2>&1 &
  exit "$status"
fi
: >"$base.o" && : >"$base.e" || exit 125
"$@" >"$base.o" 2>"$base.e" </dev/null &
pid=$!
echo "$pid" >"$base.pid"
(
  nap=0.005
  # The parent wakes the pump (USR1) once the command ended: a trapped signal ends \`wait\` at once. Only
  # once the trap is set (\`.r\`): before, the signal would kill the pump, which finds \`.s\` at its first look.
  trap : USR1
  : >"$base.r"
  while :; do
    if [ -s "$base.s" ]; then
      emit o; emit e
      read -r status <"$base.s"
      echo "s$status:$o:$e"
      exit 0
    fi
    emit o; emit e
    sleep "$nap" 2>/dev/null &
    wait "$!"
    case $nap in 0.005) nap=0.01 ;; 0.01) nap=0.02 ;; *) nap=0.05 ;; esac
  done
) &
pump=$!
wait "$pid"
status=$?
echo "$status" >"$base.s"
[ -e "$base.r" ] && kill -USR1 "$pump" 2>/dev/null
wait "$pump"
rm -f "$base.o" "$base.e" "$base.s" "$base.r" "$base.pid" </dev/null >/dev/null 2>&1 &
exit "$status"`;

/** Waits (up to 5 s) for the pid file `$1` the wrapper writes as the command starts, then runs KILL_TREE on it. */
export const KILL_BY_PID_FILE = `i=0
while [ ! -s "$1" ] && [ "$i" -lt 250 ]; do sleep 0.02 2>/dev/null || sleep 1; i=$((i + 1)); done
read -r pid <"$1" 2>/dev/null || exit 0
shift
exec /bin/sh -c "$1" outpost-kill "$pid"`;
