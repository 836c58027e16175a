#!/usr/bin/env bash
# Time dilation end to end (root; ctest label emulator-root; exit 77 = skipped):
#   1. a testbed dilated x4 passes its fidelity check against its dilated links, and says so;
#   2. every rank gets GRIDCOLL_DILATION=4, and (containerised hosts, a cgroup cpu controller,
#      --cpu-cap on) its host's CPU is capped at cores / 4;
#   3. a bench across it verifies its results and reports the undilated platform's time: within
#      2x of SMPI's prediction for the same platform (undivided it would be about 4x);
#   4. down leaves no namespaces and no cgroups.
# usage: dilation_check.sh GRIDCOLL PLATFORM
set -u
G="$1"
PLATFORM="$2"
K=4

. "$(dirname "$0")/testbed_lib.sh"
tb_require ip tc nsenter unshare mpirun
tb_start d

"$G" emulate up "$PLATFORM" --name "$N" --dilation $K --cpu-cap on --transfer 2 >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log" >&2; fail "up or fidelity"; }
grep -q "within tolerance (time dilation x$K: measured in dilated time" "$TMP/up.log" || { cat "$TMP/up.log" >&2; fail "the check does not say K"; }
"$G" emulate status "$N" | grep -q "dilation x$K .*healthy" || fail "status does not show dilation x$K"
log "ok: fidelity check passed in dilated time (x$K); status shows it"

out=$("$G" emulate run "$N" -- sh -c '
    cg=$(sed -n "s/^[0-9]*:\(.*,\)\{0,1\}cpu\(,[^:]*\)\{0,1\}:\(.*\)/\3/p;s/^0::\(.*\)/\1/p" /proc/self/cgroup | head -1)
    q=$(cat "/sys/fs/cgroup$cg/cpu.max" 2>/dev/null || echo "$(cat /sys/fs/cgroup/cpu$cg/cpu.cfs_quota_us 2>/dev/null) $(cat /sys/fs/cgroup/cpu$cg/cpu.cfs_period_us 2>/dev/null)")
    echo "host=$(hostname) k=$GRIDCOLL_DILATION quota=$q"' 2>&1) || { echo "$out" >&2; fail "emulate run"; }
echo "$out" | grep '^host=' >&2
echo "$out" | grep -q "run took .* of the undilated platform (dilation x$K" || { echo "$out" >&2; fail "emulate run does not report the undilated time"; }
[ "$(echo "$out" | grep -c "^host=.* k=$K ")" -ge 1 ] || fail "no rank saw GRIDCOLL_DILATION=$K"
echo "$out" | grep '^host=' | grep -v " k=$K " && fail "a rank did not see GRIDCOLL_DILATION=$K"
if [ -d /sys/fs/cgroup/cpu ] || [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    echo "$out" | grep '^host=' | while read -r line; do
        set -- $(echo "$line" | sed 's/.*quota=//')
        [ "$1" -gt 0 ] 2>/dev/null && [ $(( $1 * K )) -eq $(( $2 * 2 )) ] || fail "host CPU not capped at 2/$K cores: $line"
    done || exit 1
    log "ok: every rank sees K=$K, every host capped at cores/$K"
fi

"$G" emulate bench "$N" -c bcast -a binomial -b 1M --root 0 -r 3 >"$TMP/bench.csv" 2>"$TMP/bench.log" ||
    { cat "$TMP/bench.log" >&2; fail "bench"; }
grep -q ',yes,' "$TMP/bench.csv" || { cat "$TMP/bench.csv" >&2; fail "bench not verified"; }
"$G" simulate -p "$PLATFORM" -c bcast -a binomial -b 1M --root 0 -r 1 --warmup 0 >"$TMP/smpi.csv" 2>"$TMP/smpi.log" ||
    { cat "$TMP/smpi.log" >&2; fail "simulate"; }
python3 - "$TMP/bench.csv" "$TMP/smpi.csv" <<'PY' || fail "the dilated bench does not report the undilated time"
import csv, sys
t = [float(next(csv.DictReader(open(f)))["time_s"]) for f in sys.argv[1:]]
r = t[0] / t[1]
print(f"dilated bench {t[0]:.4f} s, SMPI {t[1]:.4f} s: ratio {r:.2f}", file=sys.stderr)
sys.exit(0 if 0.5 <= r <= 2 else 1)
PY
log "ok: bench verified, its time that of the undilated platform"

slot=$(sed -n 's/^slot=//p' "$ROOT/$N/state")
"$G" emulate down "$N" >/dev/null || fail "down"
[ -z "$(ip netns list | grep "^gc$slot-")" ] || fail "namespaces left"
ls -d /sys/fs/cgroup/gridcoll-"$N"-* /sys/fs/cgroup/cpu/gridcoll-"$N"-* 2>/dev/null | grep -q . && fail "cgroups left"
log "PASS"
