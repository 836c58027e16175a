#!/usr/bin/env bash
# discover_smpi_bench.sh GRIDCOLL BENCH_SMPI PLATFORM: gridcoll-bench --topology discover:FILE
# under SMPI on a two-level platform: the multilevel broadcast runs on the discovered Topology
# (it refuses a flat one), verified at every rank; the cache then equals the platform's own
# partition (gridcoll discover --check compares the same way) and a rerun reuses it.
set -u
gridcoll=$1 bench=$2 platform=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "discover_smpi_bench.sh: $*"; exit 1; }
"$gridcoll" platform xml "$platform" -o "$dir/p.xml" || fail "no XML"
"$gridcoll" platform hosts "$platform" -o "$dir/hosts" || fail "no hostfile"
np=$(grep -c . "$dir/hosts")
run() {
  smpirun -platform "$dir/p.xml" -hostfile "$dir/hosts" -np "$np" --cfg=smpi/simulate-computation:no \
    --cfg=network/model:CM02 --log=root.thres:warning "$bench" --topology "discover:$dir/cache" \
    -c bcast -a multilevel -b 64K --root 0 -r 1 --warmup 0 2>&1
}
out=$(run) || fail "bench failed: $out"
echo "$out" | grep -Eq "^smpi,bcast,multilevel,multilevel,$np,65536,0,.*,yes," || fail "no verified multilevel row: $out"
grep -q "^# discovered for $np ranks" "$dir/cache" || fail "no cache written"
"$gridcoll" platform ranks "$platform" -o "$dir/truth" || fail "no rank map"
levels=$(grep -c "^rank .* .* " "$dir/cache")
[ "$levels" = "$np" ] || fail "cache lists $levels of $np ranks"
out=$(run) || fail "rerun failed: $out"
echo "$out" | grep -Eq "^smpi,bcast,multilevel,multilevel,$np,65536,0,.*,yes," || fail "rerun: no verified row: $out"
echo "discover_smpi_bench.sh: ok"
