#!/usr/bin/env bash
# Containerised testbed hosts (emulate up's default; root; ctest label emulator-root; exit 77 =
# skipped):
#   1. every host sees its own processes only (its own PID namespace and /proc): a handful, and
#      not this script's;
#   2. /dev/shm is the host's own: a file one host makes there, no other sees;
#   3. /tmp shows the machine's files, but what a host writes there stays its own;
#   4. where the machine has a cgroup cpu controller, each host's processes are in its own cgroup;
#   5. a bench across the hosts verifies its results;
#   6. down leaves no namespaces and no cgroups.
# usage: containers_check.sh GRIDCOLL PLATFORM (hosts of one core)
set -u
G="$1"
PLATFORM="$2"

. "$(dirname "$0")/testbed_lib.sh"
tb_require ip tc nsenter unshare mpirun
grep -qw overlay /proc/filesystems || { log "SKIP: no overlay file system"; exit 77; }
tb_start c

"$G" emulate up "$PLATFORM" --name "$N" --no-check >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log" >&2; fail "up"; }
hosts=$(grep -c '^uts=' "$ROOT/$N/state")
echo "from outside" >"$TMP/outside"

# One command per host: what it sees.
out=$("$G" emulate run "$N" -- sh -c "
    n=\$(ls /proc | grep -c '^[0-9]')
    touch /dev/shm/gc-\$(hostname); shm=\$(ls /dev/shm | wc -l)
    read o < $TMP/outside; echo inside > /tmp/gc-inside-\$(hostname)-$$
    cg=\$(grep -c 'gridcoll-$N-' /proc/self/cgroup)
    echo \"host=\$(hostname) procs=\$n self=\$([ -e /proc/$$ ] && echo seen || echo unseen) shm=\$shm tmp='\$o' cg=\$cg\"
" 2>&1) || { echo "$out" >&2; fail "emulate run"; }
echo "$out" | grep '^host=' >&2
[ "$(echo "$out" | grep -o '^host=[^ ]*' | sort -u | wc -l)" -eq "$hosts" ] || fail "expected lines from $hosts hosts"
echo "$out" | grep '^host=' | while read -r line; do
    procs=$(echo "$line" | sed 's/.*procs=\([0-9]*\).*/\1/')
    [ "$procs" -lt 20 ] || fail "a host sees $procs processes: $line"
    echo "$line" | grep -q "self=unseen" || fail "a host sees this script's process: $line"
    echo "$line" | grep -q "shm=1 " || fail "a host's /dev/shm is not its own: $line"
    echo "$line" | grep -q "tmp='from outside'" || fail "a host does not see the machine's /tmp: $line"
done || exit 1
log "ok: own processes, own /dev/shm, the machine's /tmp readable"
ls /tmp/gc-inside-*-$$ >/dev/null 2>&1 && fail "a host's /tmp file shows on the machine"
log "ok: what hosts write to /tmp stays theirs"

if [ -d /sys/fs/cgroup/cpu ] || [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    echo "$out" | grep '^host=' | grep -qv "cg=1" && fail "a host's processes are not in its cgroup"
    log "ok: every host in its own cgroup"
fi

"$G" emulate bench "$N" -c allreduce -b 64K -a recursive-doubling,native -r 3 >"$TMP/bench.csv" 2>"$TMP/bench.log" ||
    { cat "$TMP/bench.log" >&2; fail "bench"; }
[ "$(grep -c ',yes,' "$TMP/bench.csv")" -eq 2 ] || { cat "$TMP/bench.csv" >&2; fail "bench rows not verified"; }
log "ok: bench verified across containerised hosts"

slot=$(sed -n 's/^slot=//p' "$ROOT/$N/state")
"$G" emulate down "$N" >/dev/null || fail "down"
[ -z "$(ip netns list | grep "^gc$slot-")" ] || fail "namespaces left"
ls -d /sys/fs/cgroup/gridcoll-"$N"-* /sys/fs/cgroup/cpu/gridcoll-"$N"-* 2>/dev/null | grep -q . && fail "cgroups left"
log "PASS"
