#!/usr/bin/env bash
# Issue 34's scale figure (root): das-4x32, 128 ranks on this machine, emulated under time
# dilation K (default auto: 33 on 2 cores, capped by the round trip) side by side with SMPI
# calibrated to Open MPI over TCP
# (the built-in validate spec's smpi-tcp backend: a message of 64 KiB or more pays a rendezvous
# round trip, 95.6 % of a link's rate is data) — flat and topology-aware broadcasts (root 0) and
# allreduce, each cell's emulated time over SMPI's, the median and the worst; the built-in
# validate spec's methods at 64 KiB and 1 MiB by default (SIZES and BCAST / ALLREDUCE override; an empty list skips that collective),
# each cell one timed call after WARMUP (default 1) untimed ones, as the spec's emulated points: a
# first call also opens the TCP connections its pairs have not used yet (a WAN round trip or more
# each, which SMPI does not model), so WARMUP=0 measures that too. REPS (default 1) timed calls.
# Prints the bring-up time, K, the table and what was left behind.
#   validation/dilation_figures.sh [OUTPUT_DIR]      (default: ./dilation-figures)
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-dilation-figures}"
G="${GRIDCOLL_BIN:-$HERE/build/bin}/gridcoll"
P="$HERE/platforms/shipped/das-4x32.toml"
K="${K:-auto}"
SIZES="${SIZES:-64K,1M}"
BCAST="${BCAST-binomial,wanstream,multilevel}"
ALLREDUCE="${ALLREDUCE-recursive-doubling,multilevel}"
REPS="${REPS:-1}"
WARMUP="${WARMUP:-1}"
N="dil-das-4x32"
[ "$(id -u)" -eq 0 ] || { echo "dilation_figures.sh: needs root (the emulated testbed)" >&2; exit 77; }
mkdir -p "$OUT"
trap '"$G" emulate down "$N" >/dev/null 2>&1 || true' EXIT
start=$(date +%s)
"$G" emulate up "$P" --name "$N" --dilation "$K" --transfer 2 >"$OUT/up.log" 2>&1 || { cat "$OUT/up.log" >&2; exit 1; }
K=$(sed -n 's/.*note: time dilation x\([0-9.]*\).*/\1/p' "$OUT/up.log" | head -1)
echo "testbed das-4x32 (128 hosts) dilated x${K:-1} up and checked in $(( $(date +%s) - start )) s"
grep "^fidelity" "$OUT/up.log"
for c in bcast allreduce; do
    methods=$BCAST; root=(--root 0)
    [ "$c" = allreduce ] && methods=$ALLREDUCE && root=()
    [ -n "$methods" ] || { : >"$OUT/emulated-$c.csv"; : >"$OUT/smpi-$c.csv"; continue; }
    "$G" emulate bench "$N" -c "$c" -a "$methods" -b "$SIZES" "${root[@]}" -r "$REPS" --warmup "$WARMUP" >"$OUT/emulated-$c.csv" 2>>"$OUT/bench.log" ||
        echo "$c: the emulated bench failed ($(grep -m1 -o 'gridcoll: error: .\{0,160\}' "$OUT/bench.log" || echo 'see bench.log')); its cells are missing"
    "$G" simulate -p "$P" -c "$c" -a "$methods" -b "$SIZES" "${root[@]}" -r "$REPS" --warmup "$WARMUP" --network-model smpi \
        --cfg 'smpi/lat-factor:65536:3;0:1' --cfg 'smpi/bw-factor:0:0.956' >"$OUT/smpi-$c.csv" 2>>"$OUT/smpi.log"
done
python3 - "$OUT" "$K" <<'PY'
import csv, statistics, sys
out, k = sys.argv[1], sys.argv[2]
rows, ratios = [], []
for c in ("bcast", "allreduce"):
    emu = {(r["method"], r["bytes"]): r for r in csv.DictReader(open(f"{out}/emulated-{c}.csv")) if r.get("time_s")}
    sim = {(r["method"], r["bytes"]): r for r in csv.DictReader(open(f"{out}/smpi-{c}.csv"))}
    for key in sorted(sim, key=lambda x: (x[0], int(x[1]))):
        s, e = float(sim[key]["time_s"]), emu.get(key)
        if e is None:
            rows.append(f"{c:10} {key[0]:20} {int(key[1]):>8}  {s:9.4f}  {'missing':>9}")
            continue
        r = float(e["time_s"]) / s
        ratios.append(r)
        rows.append(f"{c:10} {key[0]:20} {int(key[1]):>8}  {s:9.4f}  {float(e['time_s']):9.4f}  {r:5.2f}  {e['verified']}")
print(f"{'collective':10} {'method':20} {'bytes':>8}  {'SMPI s':>9}  {'emul. s':>9}  ratio verified")
print("\n".join(rows))
if ratios:
    err = [abs(r - 1) for r in ratios]
    print(f"dilation x{k}: median |emulated/SMPI - 1| = {100 * statistics.median(err):.1f} %, worst {100 * max(err):.1f} % "
          f"over {len(ratios)} cells")
PY
"$G" emulate down "$N" >/dev/null
left=$(ip netns list | grep -c '^gc' || true)
echo "left behind: $left namespaces; took $(( $(date +%s) - start )) s"
