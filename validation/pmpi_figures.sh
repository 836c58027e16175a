#!/usr/bin/env bash
# pmpi_figures.sh [overhead|emulated|all]: the PMPI library's figures (issue: PMPI library).
#
#   overhead  4 ranks on this machine (loopback), 8 B MPI_Allreduce back to back with the
#             library preloaded, which chooses the MPI library's method (one node: a flat
#             Topology): pmpi_call_loop times the intercepted MPI_Allreduce and PMPI_Allreduce
#             in alternating batches of one job; the figure is the median over RUNS jobs of
#             their ratio (target <= 1.1). Control: the same without the library (~1.0).
#   emulated  as root: an unmodified program — gridcoll-bench --algorithm native — across the
#             emulated das-4x2 (4 sites x 2 hosts, 10 ms / 1 MB/s WAN) with and without the
#             library preloaded (GRIDCOLL_TOPOLOGY = the platform's rank map, everything else
#             default), in alternating rounds on one testbed; per collective and size the ratio
#             of the medians, and each time in WAN latencies (10 ms). Targets: barrier and 8 B
#             allreduce >= 1.33x faster with it, no collective slower than 1.05x (small ones
#             1.10x), 4 MiB MPI_Bcast and MPI_Allreduce >= 3x faster.
# Environment: GRIDCOLL_BUILD (default build), RUNS (overhead, default 7), ROUNDS (emulated,
# default 2), OUT (default pmpi-figures: the CSVs and logs), COLLS (emulated: the collectives,
# default all nine), SIZES (default 8,1K,64K,1M), TIMING (per-rank, default: each rank's own
# time around back-to-back calls as the OSU benchmarks take it; or root), REPS (default 3),
# DILATION (emulated: the testbed's time dilation, default 1; `auto` gives das-4x2's 8 hosts a
# core's worth of time each on a 2-core machine, so the scheduler's time slices no longer stand
# in for the WAN in sub-millisecond cells; every time is reported undilated either way).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${GRIDCOLL_BUILD:-$here/build}
bin=$build/bin lib=$build/lib/libgridcoll_pmpi.so
out=${OUT:-pmpi-figures}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
what=${1:-all}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit } m = int((NR + 1) / 2); print v[m] }'; }

overhead() {
  local runs=${RUNS:-7} with=() without=()
  echo "== interception overhead: 4 ranks, loopback, 8 B MPI_Allreduce ($runs jobs each way)"
  for ((i = 0; i < runs; ++i)); do
    line=$(mpirun --oversubscribe -np 4 -x LD_PRELOAD="$lib" "$bin/pmpi_call_loop" allreduce 8 2000 15)
    echo "with library:    $line" | tee -a "$out/overhead.log"
    with+=("$(sed -E 's/.*ratio ([0-9.]+).*/\1/' <<<"$line")")
    line=$(mpirun --oversubscribe -np 4 "$bin/pmpi_call_loop" allreduce 8 2000 15)
    echo "without library: $line" | tee -a "$out/overhead.log"
    without+=("$(sed -E 's/.*ratio ([0-9.]+).*/\1/' <<<"$line")")
  done
  local w c
  w=$(printf '%s\n' "${with[@]}" | median)
  c=$(printf '%s\n' "${without[@]}" | median)
  echo "FIGURE overhead: intercepted / MPI's own = $w (median of $runs jobs; target <= 1.1; control without the library $c)"
}

emulated() {
  [ "$(id -u)" = 0 ] || { echo "emulated: needs root (network namespaces); skipped"; return 0; }
  local p=$here/platforms/shipped/das-4x2.toml rounds=${ROUNDS:-2}
  name=pmpi-figures  # global: the EXIT trap reads it
  "$bin/gridcoll" platform ranks "$p" -o "$out/das-4x2.ranks"
  "$bin/gridcoll" emulate down "$name" >/dev/null 2>&1 || true
  trap '"$bin/gridcoll" emulate down "$name" >/dev/null 2>&1 || true' EXIT
  "$bin/gridcoll" emulate up --name "$name" --dilation "${DILATION:-1}" "$p" >"$out/up.log"
  local sizes=${SIZES:-8,1K,64K,1M} colls=${COLLS:-barrier bcast reduce allreduce allgather gather scatter scan alltoall}
  : >"$out/emulated.csv"
  for ((r = 0; r < rounds; ++r)); do
    for mode in without with; do
      local pre=()
      [ "$mode" = with ] && pre=(env LD_PRELOAD="$lib" GRIDCOLL_TOPOLOGY="$out/das-4x2.ranks" GRIDCOLL_VERBOSE=1)
      for coll in $colls; do
        echo "== round $r, $mode library, $coll"
        "$bin/gridcoll" emulate run "$name" -- "${pre[@]}" "$bin/gridcoll-bench" --no-header -c "$coll" -a native \
          -b "$sizes" --root 0 -r "${REPS:-3}" --warmup 1 --timing "${TIMING:-per-rank}" >"$out/run.csv" \
          2>"$out/run-$r-$mode-$coll.log" ||
          { cat "$out/run-$r-$mode-$coll.log"; exit 1; }
        sed "s/^/$mode,/" "$out/run.csv" | tee -a "$out/emulated.csv"
      done
    done
  done
  echo "== per size: median time without / with the library (speed-up; verified at every rank)"
  awk -F, '{ key = $3 "," $7; t[$1 "," key] = t[$1 "," key] " " $12; if ($15 != "yes") bad = bad " " $0; keys[key] = 1 }
           END { for (k in keys) print k "," t["without," k] "," t["with," k]; if (bad != "") print "UNVERIFIED" bad > "/dev/stderr" }' \
      "$out/emulated.csv" | sort -t, -k1,1 -k2,2n | while IFS=, read -r coll bytes a b; do
    ma=$(tr ' ' '\n' <<<"$a" | grep . | median); mb=$(tr ' ' '\n' <<<"$b" | grep . | median)
    awk -v c="$coll" -v m="$bytes" -v x="$ma" -v y="$mb" 'BEGIN {
      printf "FIGURE emulated das-4x2 MPI_%-9s %8d B: without %.4f s (%.2f WAN lat.), with %.4f s (%.2f), speed-up %.2fx\n",
             c, m, x, x / 0.010, y, y / 0.010, x / y }'
  done | tee "$out/emulated-figures.txt"
  grep -h "MPI_COMM_WORLD\|comm#" "$out"/run-*-with-*.log | sort -u | head -20 || true
}

case $what in
  overhead) overhead ;;
  emulated) emulated ;;
  all) overhead; emulated ;;
  *) echo "usage: pmpi_figures.sh [overhead|emulated|all]"; exit 2 ;;
esac
