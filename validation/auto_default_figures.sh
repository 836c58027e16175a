#!/usr/bin/env bash
# auto_default_figures.sh: `auto` without a rules file (the builtin decision,
# algorithms/choice/builtin.cpp) against the MPI library's own method and against every method
# of the project, per collective and message size, side by side in one SMPI run per collective.
#   auto_default.py prints, per point, native, auto (and what it ran), the best method, the
#   ratios auto/native and auto/best, and each time in WAN latencies.
# Usage: validation/auto_default_figures.sh [-o DIR] [PLATFORM.toml]...
#        (default: platforms/shipped/das-4x32.toml)
# Environment:
#   COLLS    collectives (default: barrier bcast reduce allreduce allgather gather scatter scan alltoall)
#   SIZES    message sizes (default 8,1K,16K,64K,256K,1M,4M)
#   BLOCK_SIZES  per-rank block sizes of allgather, gather, scatter, all-to-all (default
#            8,1K,16K,64K,256K: 256 KiB blocks are 32 MiB a call on 128 ranks)
#   TIMING   root (default; the bench's release and report included) or per-rank (OSU style)
#   REPS     repetitions per point (default 2, after one warm-up)
#   RANKS    a job on the first RANKS slots of each platform's placement (uneven sites: das-4x32
#            with 100 ranks has sites of 32, 32, 32 and 4); the platform's name gets "-nRANKS"
#   NATIVE_MAX  the largest size the MPI library's own runs at (default 1M: SimGrid's own
#            allreduce of 4 MiB on 128 ranks takes more than ten minutes to simulate)
#   FAST     1: SMPI's shared-malloc buffers, globals shared, results not verified (the schedules
#            and so the simulated times are the same, the bytes are not moved): the whole sweep
#            to 4 MiB, SimGrid's own methods included, in minutes instead of hours
#   GRIDCOLL the gridcoll program (default build/bin/gridcoll)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gc=${GRIDCOLL:-$here/build/bin/gridcoll}
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; mkdir -p "$out"; fi
if [ -z "$out" ]; then
  out=$(mktemp -d -t gridcoll-autodef-XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
[ $# -gt 0 ] || set -- "$here/platforms/shipped/das-4x32.toml"
colls=${COLLS:-barrier bcast reduce allreduce allgather gather scatter scan alltoall}
sizes=${SIZES:-8,1K,16K,64K,256K,1M,4M}
timing=${TIMING:-root}
NATIVE_MAX=${NATIVE_MAX:-1M}

# Every method of the collective with its usual parameters (the registry's names, segmented
# where a method pipelines); from 64 KiB on, without the direct exchanges (every rank sends its
# whole vector to every other: a latency method, and P^2 buffers of the message in a simulation).
candidates() {
  local all
  all=$(all_candidates "$1")
  if [ "$2" = large ]; then sed -E 's/(^|,)direct(,|$)/\1/; s/,$//' <<<"$all"; else echo "$all"; fi
}
all_candidates() {
  case $1 in
    barrier) echo flat,double-ring,recursive-doubling,bruck,direct,multilevel,magpie,eco,leaders ;;
    bcast) echo binomial,pipeline:seg=64K,kary:k=4:seg=64K,splitted-binary,multilevel:seg=64K,magpie,eco,multitree:k=1:seg=64K:win=1,wanstream,leaders ;;
    reduce) echo binomial,pipeline:seg=64K,multilevel:seg=64K,magpie,eco,leaders ;;
    allreduce) echo reduce-bcast:seg=64K,recursive-doubling,ring,direct,multilevel:seg=64K,magpie,eco,multitree:seg=64K,leaders ;;
    allgather) echo ring,recursive-doubling,bruck,multilevel:seg=64K,eco,leaders ;;
    gather | scatter) echo linear,binomial,multilevel,magpie,eco ;;
    scan) echo linear,recursive-doubling,eco,leaders ;;
    alltoall) echo linear,pairwise,bruck,eco,paired ;;
  esac
}
sizes_of() {  # COLL small|large: the sizes below 64 KiB, or from 64 KiB on
  local list=$sizes
  case $1 in allgather | gather | scatter | alltoall) list=${BLOCK_SIZES:-8,1K,16K,64K,256K} ;; esac
  tr , '\n' <<<"$list" | while read -r n; do
    b=$(numfmt --from=iec "${n%B}")
    if { [ "$2" = small ] && [ "$b" -lt 65536 ]; } || { [ "$2" = large ] && [ "$b" -ge 65536 ]; }; then echo "$n"; fi
  done | paste -sd, -
}
run() {  # PLATFORM COLL SIZES METHODS: the rows (a header only into an empty file)
  [ -n "$3" ] || return 0
  "$gc" simulate -p "$1" ${RANKS:+-n "$RANKS"} -c "$2" --root 0 -r "${REPS:-2}" --warmup 1 --backend smpi --timing "$timing" \
    ${FAST:+--shared-malloc --no-privatize --no-verify} -b "$3" -a "$4" |
    { [ -s "$csv" ] && tail -n +2 || cat; }
}
up_to() {  # MAX SIZES: the sizes not above MAX
  local max
  max=$(numfmt --from=iec "$1")
  tr , '\n' <<<"$2" | while read -r n; do [ -z "$n" ] || [ "$(numfmt --from=iec "$n")" -gt "$max" ] || echo "$n"; done |
    paste -sd, -
}

for p in "$@"; do
  name=$(basename "$p" .toml)${RANKS:+-n$RANKS}
  for coll in $colls; do
    csv=$out/$name-$coll-$timing.csv
    : >"$csv"
    for band in small large; do
      band_sizes=$(sizes_of "$coll" "$band")
      [ -n "$band_sizes" ] || continue
      [ "$coll" != barrier ] || [ "$band" = small ] || continue
      echo "== $name $coll $band_sizes ($timing timing): native, auto, $(candidates "$coll" "$band")" >&2
      run "$p" "$coll" "$band_sizes" "auto,$(candidates "$coll" "$band")" >>"$csv"
      run "$p" "$coll" "$(up_to "$NATIVE_MAX" "$band_sizes")" native >>"$csv"
    done
  done
done
/usr/bin/python3 "$here/validation/auto_default.py" "$out"/*.csv
