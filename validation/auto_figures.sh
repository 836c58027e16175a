#!/usr/bin/env bash
# 'auto' vs the best fixed method (issue 10, item 7): the decision comes from a rules file made
# by measurement, and is then checked at other message sizes, all in SMPI.
#   1. train: every candidate (flat and hierarchical) at 8 B, 32 B, 128 B, ... 8 MiB, 16 MiB;
#   2. gridcoll decide -m measured turns the fastest per size into a rules file;
#   3. check: the candidates and 'auto' with those rules, side by side in one run, at the sizes
#      halfway between (16 B, 64 B, ... 4 MiB) and at both ends; auto_vs_best.py prints
#      auto / best fixed and auto / best flat per size.
# Broadcast, root 0; and allreduce with das-allreduce, karonis-allreduce.
# Usage: validation/auto_figures.sh [-o DIR] [das|karonis|grid|das-allreduce|karonis-allreduce]...
#        (default: das karonis)
#   -o DIR keeps the CSVs and rules files (default: a scratch directory, removed at the end).
# Environment: GRIDCOLL (the gridcoll program), BACKEND=event for a quick run in the event
# simulator instead of SMPI. Needs the build (scripts/build.sh); prints tables.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gc=${GRIDCOLL:-$here/build/bin/gridcoll}
backend=${BACKEND:-smpi}
out=""
if [ "${1:-}" = -o ]; then out=$2; shift 2; mkdir -p "$out"; fi
if [ -z "$out" ]; then
  out=$(mktemp -d -t gridcoll-auto-XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
[ $# -gt 0 ] || set -- das karonis

train=8,32,128,512,2K,8K,32K,128K,512K,2M,8M,16M
check=8,16,64,256,1K,4K,16K,64K,256K,1M,4M,16M
figure() {  # name platform candidates extra-options...   (COLL: the collective, default bcast)
  local name=$1 platform=$2 cands=$3 coll=${COLL:-bcast}
  shift 3
  local common=(-p "$platform" -c "$coll" --root 0 -r 1 --warmup 0 --backend "$backend" "$@")
  local hier
  hier=$("$gc" algorithms -c "$coll" | awk '/topology/ {print $1}' | paste -sd, -)
  echo
  echo "== $name: $(basename "$platform"), $coll, root 0 ($backend)"
  echo "\$ gridcoll simulate ${common[*]} -b $train -a $cands > $name-train.csv"
  "$gc" simulate "${common[@]}" -b "$train" -a "$cands" > "$out/$name-train.csv"
  "$gc" decide -m measured --measured "$out/$name-train.csv" -c "$coll" -o "$out/$name-rules.txt" 2>/dev/null
  grep -v '^#' "$out/$name-rules.txt" | sed 's/^/  rule: /'
  echo "\$ gridcoll simulate ${common[*]} -b $check -a $cands,auto --rules $name-rules.txt > $name-check.csv"
  "$gc" simulate "${common[@]}" -b "$check" -a "$cands,auto" --rules "$out/$name-rules.txt" > "$out/$name-check.csv"
  /usr/bin/python3 "$here/validation/auto_vs_best.py" "$out/$name-check.csv" --hierarchical "$hier"
}

for what in "$@"; do
  case $what in
    das)
      figure das-4x32 "$here/platforms/shipped/das-4x32.toml" \
        'binomial,pipeline:seg=64K,kary:k=4:seg=64K,magpie,multilevel:seg=64K,multitree:k=1:seg=64K:win=1,wanstream,twolayer:seg=64K[kary:k=1|kary:k=1]'
      ;;
    karonis)
      figure karonis-grid "$here/platforms/shipped/karonis-grid.toml" \
        'binomial,pipeline:seg=64K,kary:k=4:seg=64K,magpie:level=1,magpie:level=2,multilevel:seg=64K,multitree:k=1:seg=64K:win=1,wanstream'
      ;;
    grid)
      figure grid-32x32 "$here/platforms/large/grid-32x32.toml" \
        'binomial,pipeline:seg=64K,magpie,multilevel:seg=64K,multitree:k=1:seg=64K:win=1,wanstream' \
        $([ "$backend" = smpi ] && echo --shared-malloc --no-privatize --no-verify)
      ;;
    das-allreduce)
      COLL=allreduce figure das-4x32-allreduce "$here/platforms/shipped/das-4x32.toml" \
        'reduce-bcast:seg=64K,recursive-doubling,ring,magpie,multilevel:seg=64K,eco,multitree:seg=64K:win=1'
      ;;
    karonis-allreduce)
      COLL=allreduce figure karonis-grid-allreduce "$here/platforms/shipped/karonis-grid.toml" \
        'reduce-bcast:seg=64K,recursive-doubling,ring,magpie:level=1,magpie:level=2,multilevel:seg=64K,eco,multitree:seg=64K:win=1'
      ;;
    *) echo "auto_figures.sh: unknown figure '$what' (das, karonis, grid, das-allreduce, karonis-allreduce)" >&2; exit 2 ;;
  esac
done
