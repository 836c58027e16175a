#!/usr/bin/env bash
# A testbed over several machines, here three namespaces standing in for machines (root; ctest
# label emulator-root; exit 77 = skipped):
#   1. `emulate plan --machines 3` gives each machine its part of the commands;
#   2. das-4x2 over 3 stand-ins comes up with links crossing machines through VXLAN tunnels (a
#      site split over two machines, WAN links between machines) and passes its fidelity check,
#      path classes across machines included;
#   3. status names the machines; Open MPI runs across them: every host answers, and a
#      topology-aware broadcast and an allreduce verify their results;
#   4. a WAN link that crosses machines can be taken down and comes back (the fault is on its
#      shaped ends, on the machine that carries it);
#   5. down leaves no namespaces.
# usage: machines_check.sh GRIDCOLL PLATFORM
set -u
G="$1"
PLATFORM="$2"

. "$(dirname "$0")/testbed_lib.sh"
tb_require ip tc nsenter unshare mpirun
probe="gcvxprobe-$$"
ip netns add "$probe" || fail "ip netns add"
ip -n "$probe" link add vx type vxlan id 1 dstport 4789 local 127.0.0.1 2>/dev/null; has_vxlan=$?
ip netns del "$probe"
[ "$has_vxlan" -eq 0 ] || { log "SKIP: this kernel has no vxlan"; exit 77; }
tb_start m

"$G" emulate plan "$PLATFORM" --machines 3 >"$TMP/plan.txt" 2>"$TMP/plan.log" || { cat "$TMP/plan.log" >&2; fail "plan"; }
[ "$(grep -c '^## machine' "$TMP/plan.txt")" -eq 3 ] || fail "plan: expected three machines' parts"
grep -q 'type vxlan' "$TMP/plan.txt" || fail "plan: no tunnels"
grep -q 'cross machines through VXLAN' "$TMP/plan.log" || { cat "$TMP/plan.log" >&2; fail "plan: no note on the tunnels"; }
log "ok: plan in three parts, with tunnels"

"$G" emulate up "$PLATFORM" --name "$N" --machines 3 --transfer 2 >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log" >&2; fail "up or fidelity"; }
grep -q 'across machines .* ok' "$TMP/up.log" || { cat "$TMP/up.log" >&2; fail "no path class across machines checked"; }
grep 'across machines' "$TMP/up.log" >&2
"$G" emulate status "$N" | grep -q "machines 3 .*healthy" || fail "status does not name the machines"
log "ok: up over 3 stand-in machines, fidelity checked across them"

hosts=$(grep -c '^uts=' "$ROOT/$N/state")
# Open MPI's launcher may add warnings of its own (setpgid under the rsh agent): count tagged lines.
out=$("$G" emulate run "$N" -- sh -c 'echo "host=$(hostname)"' 2>&1) || { echo "$out" >&2; fail "emulate run"; }
[ "$(echo "$out" | grep -o '^host=[^ ]*' | sort -u | wc -l)" -eq "$hosts" ] || { echo "$out" >&2; fail "not every host answered"; }
"$G" emulate bench "$N" -c bcast -b 64K --root 5 -a wanstream,multilevel,native -r 3 >"$TMP/bcast.csv" 2>"$TMP/bench.log" ||
    { cat "$TMP/bench.log" >&2; fail "bench bcast"; }
"$G" emulate bench "$N" -c allreduce -b 8,1M -a leaders,multitree,native -r 3 >"$TMP/allreduce.csv" 2>>"$TMP/bench.log" ||
    { cat "$TMP/bench.log" >&2; fail "bench allreduce"; }
[ "$(grep -c ',yes,' "$TMP/bcast.csv")" -eq 3 ] || { cat "$TMP/bcast.csv" >&2; fail "bcast rows not verified"; }
[ "$(grep -c ',yes,' "$TMP/allreduce.csv")" -eq 6 ] || { cat "$TMP/allreduce.csv" >&2; fail "allreduce rows not verified"; }
log "ok: MPI across the machines, every result verified"

link=$("$G" emulate fault "$N" --list | grep -v '^site:' | tail -1)
"$G" emulate fault "$N" --link "$link" --for 1s >"$TMP/fault.log" 2>&1 || { cat "$TMP/fault.log" >&2; fail "fault on $link"; }
"$G" emulate bench "$N" -c bcast -b 8 --root 0 -a native -r 1 >"$TMP/after.csv" 2>>"$TMP/bench.log" ||
    { cat "$TMP/bench.log" >&2; fail "bench after the fault"; }
grep -q ',yes,' "$TMP/after.csv" || fail "the network did not come back after the fault on $link"
log "ok: WAN link $link down for 1 s and back"

slot=$(sed -n 's/^slot=//p' "$ROOT/$N/state")
"$G" emulate down "$N" >/dev/null || fail "down"
[ -z "$(ip netns list | grep "^gc$slot-")" ] || fail "namespaces left"
log "PASS"
