#!/usr/bin/env bash
# Issue 34's fault figure (root): a validate sweep on the emulated das-4x2 under a schedule of
# 20 one-link WAN outages of 1-5 s (random links and lengths, seeded, one every 3-5 s from 2 s
# on, carried out during every run of the sweep). Prints the schedule, how many points finished
# verified and how many were marked failed (and why), the sweep's wall time, and whether
# anything was left behind (namespaces, MPI processes, delay lines, blackholed links).
#   validation/fault_figures.sh [OUTPUT_DIR]      (default: ./fault-figures)
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-fault-figures}"
BIN="${GRIDCOLL_BIN:-$HERE/build/bin}"
[ "$(id -u)" -eq 0 ] || { echo "fault_figures.sh: needs root (the emulated testbed)" >&2; exit 77; }
mkdir -p "$OUT"
cp "$HERE/validation/faults/das-4x2-outages.toml" "$OUT/spec.toml"
python3 - "$OUT/outages.txt" <<'PY'
import random, sys
links = ["c0:c1", "c0:c2", "c0:c3", "c1:c2", "c1:c3", "c2:c3"]
rng = random.Random(34)
t, lines = 2.0, ["# 20 one-link outages of 1-5 s: <at> <duration> <link>"]
for _ in range(20):
    lines.append(f"{t:.1f}s {rng.randint(1, 5)}s {rng.choice(links)}")
    t += rng.uniform(3, 5)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
cat "$OUT/outages.txt"
start=$(date +%s)
"$BIN/gridcoll-validate" "$OUT/spec.toml" -o "$OUT/run" --fresh --no-progress 2>"$OUT/sweep.log" || true
took=$(( $(date +%s) - start ))
python3 - "$OUT/run/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r for r in rows if r.get("status") == "ok"]
bad = [r for r in rows if r.get("status") != "ok"]
print(f"points: {len(rows)}; finished verified: {sum(r.get('verified') == 'yes' for r in ok)} of {len(ok)} ok; failed: {len(bad)}")
for r in bad:
    print(f"  failed: {r.get('collective')} {r.get('method')} {r.get('bytes')}: {r.get('error', '')[:200]}")
PY
echo "sweep wall time: ${took} s; faults carried out: $(grep -c ' down (at' "$OUT/sweep.log" || true)"
left_ns=$(ip netns list | awk '{print $1}' | grep -c '^gc[0-9]-' || true)
left_proc=$(ps -eo comm= | grep -cxE 'gridcoll-bench|gridcoll-delayl|orted|prted' || true)
echo "left behind: ${left_ns} namespaces, ${left_proc} MPI / delay-line processes"
