/**
 * Runs `$2…` with its stdout and stderr in files (`$1.o`, `$1.e`) and relays them as hex lines, so the
 * output survives the daemon's session logs, which label output line by line: they add a newline to a last
 * line without one and lose NUL bytes (the Daytona daemon reads the command's FIFOs with `read -r`). Each
 * line is `o<offset>:<hex>` or `e<offset>:<hex>` (at most CHUNK bytes, so lines stay short), and the last
 * is `s<status>:<stdout bytes>:<stderr bytes>`: the host knows when it has everything and where a gap is.
 * A background pump relays the files while the command runs (checking every 5–50 ms) and writes the
 * trailer once the parent saw the command end. The files live in the lease's scratch; processes the
 * command left running keep writing to them after the trailer, as they would to a closed pipe.
 */
export const ENCODED_OUTPUT_WRAPPER = `base=$1
shift
: >"$base.o" && : >"$base.e" || exit 125
"$@" >"$base.o" 2>"$base.e" </dev/null &
pid=$!
(
  o=0; e=0; nap=0.005
  emit() {
    eval "off=\\$$1"
    size=$(wc -c <"$base.$1") || return 0
    size=$((size))
    while [ "$off" -lt "$size" ]; do
      n=$((size - off)); [ "$n" -gt 32768 ] && n=32768
      printf '%s%s:' "$1" "$off"
      tail -c +"$((off + 1))" "$base.$1" | head -c "$n" | od -An -v -tx1 | tr -d ' \\n'
      echo
      off=$((off + n))
    done
    eval "$1=\\$off"
  }
  while :; do
    if [ -e "$base.s" ]; then
      emit o; emit e
      read -r status <"$base.s"
      echo "s$status:$o:$e"
      exit 0
    fi
    emit o; emit e
    sleep "$nap" 2>/dev/null || sleep 1
    case $nap in 0.005) nap=0.01 ;; 0.01) nap=0.02 ;; *) nap=0.05 ;; esac
  done
) &
pump=$!
wait "$pid"
status=$?
echo "$status" >"$base.t" && mv -f "$base.t" "$base.s"
wait "$pump"
rm -f "$base.o" "$base.e" "$base.s"
exit "$status"`;
