#!/usr/bin/env bash
# auto_native_sweep.sh: `auto` (the builtin decision) against the MPI library's own method on
# every shipped platform whose sites are joined by a WAN, every collective, at bulk sizes, under
# SMPI with shared-malloc buffers (the same schedules and simulated times, the bytes not moved).
# Prints one line per point, "platform collective bytes method auto/native", and marks with
# "SLOWER" each point where auto takes longer than SimGrid's own (docs/design/auto-default.md,
# "Every WAN platform at bulk sizes"). Exits 1 when a point is slower by more than TOLERANCE.
# Usage: validation/auto_native_sweep.sh [PLATFORM.toml]...   (default: the shipped WAN platforms)
# Environment:
#   COLLS       collectives (default: bcast reduce allreduce allgather gather scatter scan exscan
#               reduce_scatter_block alltoall)
#   SIZES       message sizes (default 16K,64K,256K,1M)
#   BLOCK_SIZES per-rank blocks of allgather, gather, scatter, reduce_scatter_block and all-to-all
#               (default 16K,64K,256K)
#   TOLERANCE   the largest auto/native accepted (default 1.02)
#   TIMEOUT     seconds per collective and platform (default 900: SimGrid's own reduce-scatter
#               on 128 ranks can take longer; such a point is reported as timed out)
#   GRIDCOLL    the gridcoll program (default build/bin/gridcoll)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gc=${GRIDCOLL:-$here/build/bin/gridcoll}
colls=${COLLS:-bcast reduce allreduce allgather gather scatter scan exscan reduce_scatter_block alltoall}
tolerance=${TOLERANCE:-1.02}
if [ $# -eq 0 ]; then
  for p in das-4x2 das-4x32 das-8x16 karonis-grid mixed-wan-5x16 pmesh-6x16 ring-8x16 twohub-10x8 geo-dc; do
    set -- "$@" "$here/platforms/shipped/$p.toml"
  done
fi
[ -x "$gc" ] || { echo "auto_native_sweep: no gridcoll at $gc (build first, or set GRIDCOLL)" >&2; exit 2; }

worst=0
for p in "$@"; do
  [ -f "$p" ] || { echo "auto_native_sweep: no platform description '$p'" >&2; exit 2; }
  name=$(basename "$p" .toml)
  for c in $colls; do
    sizes=${SIZES:-16K,64K,256K,1M}
    case $c in allgather | gather | scatter | reduce_scatter_block | alltoall) sizes=${BLOCK_SIZES:-16K,64K,256K} ;; esac
    rows=$(timeout "${TIMEOUT:-900}" "$gc" simulate -p "$p" -c "$c" --root 0 -r 1 --warmup 0 --backend smpi \
      --timing root --shared-malloc --no-privatize --no-verify -b "$sizes" -a native,auto 2>/dev/null)
    rc=$?
    [ $rc -eq 0 ] || { echo "$name $c: no result (exit status $rc$([ $rc -eq 124 ] && echo ', timed out'))"; continue; }
    # Rows: backend,collective,method,algorithm,ranks,bytes,...,time_s (11th),...,choice (15th).
    out=$(awk -F, -v name="$name" -v coll="$c" 'NR > 1 {
        if ($15 ~ /^auto/) { auto[$6] = $11; method[$6] = $3 } else native[$6] = $11
      } END {
        for (b in auto) if (b in native && native[b] > 0) {
          r = auto[b] / native[b]
          flag = (r > 1.0005) ? " SLOWER" : ""
          printf "%s %s %d %s %.4f%s\n", name, coll, b, method[b], r, flag
        }
      }' <<<"$rows" | sort -k3,3n)
    [ -n "$out" ] && echo "$out"
    w=$(awk '{ if ($5 > m) m = $5 } END { print m + 0 }' <<<"$out")
    worst=$(awk -v a="$worst" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
  done
done
echo "worst auto/native: $worst (tolerance $tolerance)"
awk -v w="$worst" -v t="$tolerance" 'BEGIN { exit !(w <= t) }'
