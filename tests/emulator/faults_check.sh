#!/usr/bin/env bash
# WAN faults and the no-hang watch on the emulated testbed (root; ctest label emulator-root;
# exit 77 = skipped):
#   1. `emulate fault --list` names the WAN link and both sites; an unknown link is an error
#      naming the choices; a bad schedule line is an error naming file:line;
#   2. the WAN link down: pings across it are lost; back up: they pass again;
#   3. a bench under a schedule of two 2 s outages of the WAN link (--faults): it completes and
#      every result is verified (established TCP connections retransmit until the link is back);
#   4. an outage longer than the stall limit (--stall-timeout 8s): the bench stops within the
#      limit plus a margin, exit status 2, a message naming the run, the limit and the link; no
#      process is left in the testbed's namespaces and the link is restored afterwards;
#   5. down: nothing is left.
# usage: faults_check.sh GRIDCOLL PLATFORM (a two-site description whose sites are s0 and s1)
set -u
G="$1"
PLATFORM="$2"

. "$(dirname "$0")/testbed_lib.sh"
tb_require ip tc nsenter unshare ping mpirun
tb_start f

log "up: $N"
"$G" emulate up "$PLATFORM" --name "$N" --no-check >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log" >&2; fail "up"; }
slot=$(sed -n 's/^slot=//p' "$ROOT/$N/state")
P="gc$slot-"

# 1. names and errors
list=$("$G" emulate fault "$N" --list) || fail "fault --list"
for want in s0:s1 site:s0 site:s1; do
    echo "$list" | grep -qx "$want" || fail "fault --list lacks $want (got: $(echo $list))"
done
out=$("$G" emulate fault "$N" --link s0:s9 2>&1); rc=$?
[ "$rc" -eq 2 ] && echo "$out" | grep -q "no WAN link or site 's0:s9'.*choose from: s0:s1" || fail "unknown link: rc $rc, '$out'"
printf '1s 2s s0:s1\n3s soon s0:s1\n' >"$TMP/bad.txt"
out=$("$G" emulate fault "$N" --schedule "$TMP/bad.txt" 2>&1); rc=$?
[ "$rc" -eq 2 ] && echo "$out" | grep -q "bad.txt:2: " || fail "bad schedule: rc $rc, '$out'"
log "ok: --list, unknown link, bad schedule line"

# 2. down and up again, seen by ping between a host of each site
h0=$(sed -n "s/^netns=\(${P}h-.*\)/\1/p" "$ROOT/$N/state" | head -1)
[ -n "$h0" ] || fail "no host namespace in the state file"
far=$(ip -n "${P}r-s1" -4 -o addr show | awk '/198\.18\./ { sub(/\/.*/, "", $4); print $4; exit }')
[ -n "$far" ] || fail "no address on the far site's router"
ping_ok() { ip netns exec "$h0" ping -c 2 -i 0.2 -W 1 "$far" >/dev/null 2>&1; }
ping_ok || fail "no ping across the WAN before any fault"
"$G" emulate fault "$N" --link s0:s1 --for 3s >"$TMP/f2.log" 2>&1 &
fpid=$!
sleep 1
ping_ok && fail "pings crossed the WAN link while it was down"
wait "$fpid" || { cat "$TMP/f2.log" >&2; fail "fault exited non-zero"; }
ping_ok || fail "no ping across the WAN after the link came back"
log "ok: the link drops everything while down and carries again afterwards"

# 3. short outages during a bench: completes, verified
printf '# two short outages\n1s 2s s0:s1\n5s 2s site:s1\n' >"$TMP/short.txt"
"$G" emulate bench "$N" -c allreduce -b 64K,256K -a recursive-doubling -r 8 --faults "$TMP/short.txt" >"$TMP/b3.csv" 2>"$TMP/b3.log" ||
    { cat "$TMP/b3.log" >&2; fail "bench under short outages failed"; }
grep -q "fault s0:s1 down" "$TMP/b3.log" || fail "the schedule did not run (no 'fault s0:s1 down' in the log)"
rows=$(grep -c ",yes," "$TMP/b3.csv")
[ "$rows" -eq 2 ] || { cat "$TMP/b3.csv" >&2; fail "expected 2 verified rows, got $rows"; }
log "ok: bench under two 2 s outages: 2 verified rows"

# 4. a long outage: the watch stops the run
printf '1s 120s s0:s1\n' >"$TMP/long.txt"
start=$(date +%s)
out=$("$G" emulate bench "$N" -c bcast -b 1M -a binomial -r 50 --faults "$TMP/long.txt" --stall-timeout 8s 2>&1); rc=$?
took=$(( $(date +%s) - start ))
[ "$rc" -eq 2 ] || fail "a stalled run: exit status $rc (expected 2): $out"
echo "$out" | grep -q "made no progress for 8 s" || fail "no stall message: $out"
echo "$out" | grep -q "s0:s1 down" || fail "the stall message does not name the link: $out"
[ "$took" -lt 60 ] || fail "the stalled run took $took s to stop"
# (a containerised host keeps its init and the unshare above it: the testbed's own daemons)
keep=$( (sed -n 's/^daemon=//p' "$ROOT/$N/state"; cat "$ROOT/$N"/hosts/*/pid 2>/dev/null) | sort -u)
for ns in $(ip netns list | awk '{print $1}' | grep "^${P}h-"); do
    left=$(ip netns pids "$ns" | grep -vxF "$keep" | tr '\n' ' ')
    [ -z "$left" ] || fail "processes left in $ns: $left"
done
ping_ok || fail "the link is still down after the stalled run"
log "ok: stalled run stopped after $took s, named the link, left no process, link restored"

# 5. down
"$G" emulate down "$N" >/dev/null || fail "down"
[ -z "$(ip netns list | grep "^${P}")" ] || fail "namespaces left: $(ip netns list | grep "^${P}" | tr '\n' ' ')"
log "PASS"
