# CPU accounting for the benchmarks: the CPU time (user + system, all threads, from /proc/<pid>/stat) each process
# spent during a load step, divided by the requests answered (shed 503s included: they cost little). Unlike latency
# this barely moves when other work shares the cores, so it shows on a busy box what a quiet one can reach: the
# ceiling on N cores is N s / (CPU seconds per request of every process on the path). Source it; functions only.

CPU_TICKS_PER_S=$(getconf CLK_TCK)

# cpu_ticks PID: utime + stime of PID in clock ticks (0 once it is gone). The command name may hold spaces, so
# the fields are counted after its closing parenthesis.
cpu_ticks() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  stat=${stat##*) }
  awk '{ print $12 + $13 }' <<<"$stat"
}

# cpu_switches PID: context switches (voluntary + involuntary) of all of PID's threads that are alive now: each is
# a thread that went to sleep and was woken again, or was preempted. Per request, the number of wake-ups a hop costs.
cpu_switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}

# cpu_thread_switches PID: "thread-name switches" per line, summed over PID's threads of the same name (numbered
# names such as `kafka-reader-0` keep their numbers).
cpu_thread_switches() {
  local task
  for task in /proc/"$1"/task/*; do
    printf '%s ' "$(tr ' ' '_' <"$task/comm" 2>/dev/null)"
    awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }' "$task/status" 2>/dev/null
  done | awk '{ n[$1] += $2 } END { for (t in n) print t, n[t] }'
}

# cpu_answered OUTPUT: requests that got an HTTP answer (any status; LoadGen's -1 is none) in a LoadGen line, or
# wrk's request count.
cpu_answered() {
  if grep -q 'statuses' <<<"$1"; then
    head -1 <<<"$1" | grep -oE 'statuses [-0-9× ]+' | tr ' ' '\n' | awk -F× '$2 != "" && $1 != "-1" { n += $2 } END { print n + 0 }'
  else
    grep -oE '^ *[0-9]+ requests in' <<<"$1" | grep -oE '[0-9]+' | head -1 || echo 0
  fi
}

# cpu_measure "NAME=PID ..." LABEL COMMAND...: runs COMMAND (a load generator, or a shell function running one; its
# CPU is counted as "load generator"), prints its output, then CPU-µs per answered request for each named process,
# their sum, and the ceilings that sum allows on this box's cores: everything on the box, without the load
# generator, and our services alone (the dev broker and Redis run elsewhere in production). Sets CPU_SUM_US (every
# process) and CPU_OURS_US (the named processes except "broker" and "redis").
cpu_measure() {
  local processes=$1 label=$2; shift 2
  local -A before switches
  local entry name pid out answered loadgen_s
  for entry in $processes; do
    before[$entry]=$(cpu_ticks "${entry#*=}")
    switches[$entry]=$(cpu_switches "${entry#*=}")
    [ -n "${CPU_THREADS:-}" ] && cpu_thread_switches "${entry#*=}" >"/tmp/cpu-threads.$$.${entry%%=*}"
  done
  local timefile TIMEFORMAT='%U %S'
  timefile=$(mktemp)
  # bash's `time` also counts a shell function's child processes; the command's own stderr is dropped.
  out=$( { time "$@" 2>/dev/null; } 2>"$timefile")
  loadgen_s=$(tail -1 "$timefile" | awk '{ print $1 + $2 }')
  rm -f "$timefile"
  echo "$out"
  answered=$(cpu_answered "$out")
  if [ "${answered:-0}" -le 0 ]; then echo "== CPU per request, $label: no request answered"; return; fi
  local line="" sum=0 ours=0 us cores wakes=""
  cores=$(nproc)
  for entry in $processes; do
    name=${entry%%=*} pid=${entry#*=}
    wakes+="$name $(awk -v a="${switches[$entry]}" -v b="$(cpu_switches "$pid")" -v n="$answered" \
      'BEGIN { printf "%.1f", (b - a) / n }') · "
    us=$(awk -v a="${before[$entry]}" -v b="$(cpu_ticks "$pid")" -v t="$CPU_TICKS_PER_S" -v n="$answered" \
      'BEGIN { printf "%.0f", (b - a) / t * 1e6 / n }')
    line+="$name $us · "
    sum=$((sum + us))
    case $name in broker|redis) ;; *) ours=$((ours + us)) ;; esac
  done
  us=$(awk -v s="$loadgen_s" -v n="$answered" 'BEGIN { printf "%.0f", s * 1e6 / n }')
  line+="load generator $us"
  CPU_SUM_US=$((sum + us))
  CPU_OURS_US=$ours
  echo "== CPU-µs per request, $label ($answered answered): $line · sum $CPU_SUM_US"
  echo "== context switches per request, $label: ${wakes% · }"
  if [ -n "${CPU_THREADS:-}" ]; then
    for entry in $processes; do
      name=${entry%%=*}
      # Threads that came and went during the step are not counted (only threads alive at both ends).
      cpu_thread_switches "${entry#*=}" | awk -v n="$answered" -v who="$name" '
        NR == FNR { before[$1] = $2; next }
        ($1 in before) { d = ($2 - before[$1]) / n; if (d >= 0.05) printf "%s %.2f\n", $1, d }' \
        "/tmp/cpu-threads.$$.$name" - | sort -k2 -rn | head -8 | awk -v who="$name" '
        { line = line sep $1 " " $2; sep = " · " } END { if (line != "") print "==   " who " threads: " line }'
      rm -f "/tmp/cpu-threads.$$.$name"
    done
  fi
  awk -v c="$cores" -v all="$CPU_SUM_US" -v box="$sum" -v ours="$ours" 'BEGIN {
    printf "== ceiling on %d cores: %.0f/s with everything above on the box · %.0f/s without the load generator", c, c * 1e6 / all, c * 1e6 / box
    if (ours > 0) printf " · %.0f/s for our services alone (broker, Redis and load generator elsewhere)", c * 1e6 / ours
    printf "\n" }'
}
