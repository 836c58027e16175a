#!/usr/bin/env bash
# Issue 34's figure for testbeds over several machines (root): a 256-host testbed (das-8x32,
# tests/emulator/platforms) over MACHINES (default 2) namespaces standing in for machines —
# bring-up time, its fidelity check (path classes across machines included), a topology-aware
# broadcast of 256 ranks across it (wanstream and multilevel, 64 KiB, root 0, verified), teardown
# time and what was left behind.
#   validation/machines_figures.sh [OUTPUT_DIR]      (default: ./machines-figures)
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-machines-figures}"
G="${GRIDCOLL_BIN:-$HERE/build/bin}/gridcoll"
P="${PLATFORM:-$HERE/tests/emulator/platforms/das-8x32.toml}"
MACHINES="${MACHINES:-2}"
N="mach-fig"
[ "$(id -u)" -eq 0 ] || { echo "machines_figures.sh: needs root (the emulated testbed)" >&2; exit 77; }
mkdir -p "$OUT"
trap '"$G" emulate down "$N" >/dev/null 2>&1 || true' EXIT
t0=$(date +%s%N)
"$G" emulate up "$P" --name "$N" --machines "$MACHINES" --no-check >"$OUT/up.log" 2>&1 || { cat "$OUT/up.log" >&2; exit 1; }
t1=$(date +%s%N)
grep -m1 'note: hosts on' "$OUT/up.log" | sed 's/^ *note: //'
echo "bring-up: $(( (t1 - t0) / 1000000 )) ms"
"$G" emulate check "$N" --transfer 2 >"$OUT/check.txt" 2>"$OUT/check.log" || { cat "$OUT/check.txt" >&2; echo "fidelity check FAILED" >&2; exit 1; }
cat "$OUT/check.txt"
t2=$(date +%s%N)
"$G" emulate bench "$N" -c bcast -a wanstream,multilevel -b 64K --root 0 -r 3 >"$OUT/bcast.csv" 2>"$OUT/bench.log" ||
    { grep -v setpgid "$OUT/bench.log" >&2; exit 1; }
t3=$(date +%s%N)
python3 - "$OUT/bcast.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"bcast {r['method']:12} {int(r['bytes']):>7} B  {r['ranks']} ranks  {float(r['time_s']):.3f} s  verified: {r['verified']}")
PY
echo "bench (launch, 2 methods x 3 runs): $(( (t3 - t2) / 1000000 )) ms"
"$G" emulate down "$N" >/dev/null
t4=$(date +%s%N)
echo "teardown: $(( (t4 - t3) / 1000000 )) ms"
echo "left behind: $(ip netns list | grep -c '^gc' || true) namespaces"
