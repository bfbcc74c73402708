# shellcheck shell=bash
# Helpers shared by the benchmark scripts: timing of whole processes (wall, CPU, peak RSS) with
# GNU time. The loopback nginx comes from scripts/setup.sh (torchdex_nginx_start).

# bench_time OUTVAR COMMAND...: runs COMMAND once; sets OUTVAR to "wall_s cpu_s peak_rss_mb".
bench_time() {
  local __out=$1
  shift
  local log
  log=$(mktemp)
  /usr/bin/time -f '%e %U %S %M' -o "$log" "$@" >/dev/null 2>&1 || {
    echo "bench: command failed: $*" >&2
    rm -f "$log"
    return 1
  }
  local wall user sys rss
  read -r wall user sys rss <"$log"
  rm -f "$log"
  printf -v "$__out" '%s %s %s' "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
}

# bench_median "a b c ...": the median of the numbers.
bench_median() {
  tr ' ' '\n' <<<"$1" | sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
