#!/usr/bin/env bash
# The emulated testbed end to end (root; ctest label emulator-root; exit 77 = skipped):
#   1. a two-cluster, two-hosts-each testbed with a 5 ms, 20 Mbit/s WAN comes up and passes its
#      fidelity check (gridcoll emulate up);
#   2. a second testbed of the same description comes up beside it (other slot, names, addresses)
#      and carries an MPI broadcast across its WAN;
#   3. the foundation's MPI correctness runs (every collective, --algorithm all plus Open MPI's
#      own, data verified at every rank, a rooted one's root rotating through all 8 ranks) pass
#      across the first testbed, and a corrupted result is still caught there;
#   4. SIGINT during a one-off `emulate run` removes everything it created;
#   5. a run killed with SIGKILL leaves a testbed that the next `up` finds and removes;
#   6. after `down`, nothing is left: namespaces, delay lines, MPI processes, mounts, state.
# usage: testbed_check.sh GRIDCOLL GRIDCOLL_BENCH PLATFORM
set -u
G="$1"
BENCH="$2"
PLATFORM="$3"

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then log "SKIP: needs root (network namespaces)"; exit 77; fi
for tool in ip tc nsenter unshare ping iperf3 mpirun; do
    command -v "$tool" >/dev/null || { log "SKIP: '$tool' is not installed"; exit 77; }
done
[ -c /dev/net/tun ] || { log "SKIP: no /dev/net/tun"; exit 77; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ROOT="${GRIDCOLL_STATE_ROOT:-/run/gridcoll}"
A="ci-a-$$" B="ci-b-$$" K="ci-k-$$"
SLEEP_ARG="300.$$"   # the one-off runs' program, recognisable among the machine's processes
TMP="$(mktemp -d /var/tmp/gcci.XXXXXX)"  # not /tmp: what a containerised host writes there is its own
BG=""

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    [ -n "$BG" ] && kill -9 "$BG" 2>/dev/null
    for n in "$A" "$B" "$K"; do
        [ -e "$ROOT/$n/state" ] && "$G" emulate down "$n" >/dev/null 2>&1
    done
    rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

slot_of() { sed -n 's/^slot=//p' "$ROOT/$1/state"; }
daemons_of() { sed -n 's/^daemon=//p' "$ROOT/$1/state"; }

# Waits (at most $2 seconds) for file $1, written by a command started in the background.
wait_file() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        [ -e "$1" ] && return 0
        kill -0 "$BG" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# Process $1 exists and is not a zombie (an orphan's exit is reaped by init in its own time).
running() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${st#Z}" = "$st" ]; }

# Nothing of testbed $1 (slot $2, delay-line pids $3...) may remain.
assert_gone() {
    local name=$1 slot=$2
    shift 2
    [ -e "$ROOT/$name" ] && fail "$name: state directory $ROOT/$name remains"
    ip netns list | grep -q "^gc$slot-" && fail "$name: namespaces remain: $(ip netns list | grep "^gc$slot-" | tr '\n' ' ')"
    grep -q " $ROOT/$name/" /proc/self/mountinfo && fail "$name: hostname namespaces remain mounted"
    local p
    for p in "$@"; do running "$p" && fail "$name: delay line $p still runs"; done
    pgrep -f "gridcoll-delayline.*--netns-a gc$slot-" >/dev/null && fail "$name: a delay line of slot $slot still runs"
    pgrep -f "sleep $SLEEP_ARG\$" >/dev/null && fail "$name: the MPI program still runs"
    log "$name: nothing left behind"
}

log "1. up with the fidelity check"
"$G" emulate up "$PLATFORM" --name "$A" || fail "testbed $A did not come up with a passing fidelity check"
SLOT_A=$(slot_of "$A")

log "2. a second testbed beside it"
"$G" emulate up "$PLATFORM" --name "$B" --no-check || fail "second testbed $B did not come up"
SLOT_B=$(slot_of "$B")
[ "$SLOT_A" != "$SLOT_B" ] || fail "two testbeds share slot $SLOT_A"
"$G" emulate status | grep -q "^$A .*healthy" || fail "status does not show $A healthy"
"$G" emulate status | grep -q "^$B .*healthy" || fail "status does not show $B healthy"
"$G" emulate run "$B" --mca btl_tcp_eager_limit 131072 -- "$BENCH" --collective bcast --algorithm binomial \
    --bytes 100000 --reps 2 >"$TMP/b.csv" || fail "MPI across the second testbed"
if "$G" emulate run "$B" --mca btl no_such_btl -- "$BENCH" --collective bcast --algorithm binomial --bytes 8 \
    >"$TMP/mca.out" 2>&1; then
    fail "--mca did not reach mpirun (an unknown BTL was accepted)"
fi
grep -q ',yes,[^,]*,[^,]*,[^,]*$' "$TMP/b.csv" || fail "no verified result from the second testbed"
B_DAEMONS=$(daemons_of "$B")
"$G" emulate down "$B" || fail "down $B"
# shellcheck disable=SC2086
assert_gone "$B" "$SLOT_B" $B_DAEMONS
"$G" emulate status | grep -q "^$A .*healthy" || fail "removing $B disturbed $A"

log "3. MPI correctness across the testbed (8 ranks, 2 per host; the emulated backend: emulate bench)"
declare -A OPTS=(
    [barrier]="" [bcast]="--segment 4K" [reduce]="--segment 1K --type double --op prod"
    [allreduce]="--segment 2K --type int64 --op max" [scan]="--segment 1K --type float --op sum"
    [scatter]="--segment 1K" [gather]="--segment 1K" [allgather]="" [alltoall]="--segment 1K")
for coll in barrier bcast reduce allreduce scan scatter gather allgather alltoall; do
    # A size under one segment and one of many segments with a short last one: what the
    # emulated network adds to the loopback runs (tests/mpi), which cover every edge size.
    sizes="13,20001"
    case $coll in reduce | allreduce | scan) sizes="1000,20000" ;; esac
    # A rooted collective's 8 calls put the root on every rank; the others need two calls
    # back to back (the second reusing what the first set up), not eight.
    reps=2
    case $coll in bcast | reduce | scatter | gather) reps=8 ;; esac
    # shellcheck disable=SC2086
    "$G" emulate bench "$A" --collective "$coll" --algorithm all --bytes "$sizes" ${OPTS[$coll]} \
        --fanout 3 --reps "$reps" --warmup 0 >"$TMP/$coll.csv" 2>"$TMP/$coll.err" \
        || { cat "$TMP/$coll.err" >&2; fail "$coll across the testbed"; }
    rows=$(grep -c '^emulated,.*,yes,[^,]*,[^,]*,[^,]*$' "$TMP/$coll.csv")
    bad=$(grep -vc -e ',yes,[^,]*,[^,]*,[^,]*$' -e '^backend,' "$TMP/$coll.csv")
    [ "$rows" -gt 0 ] && [ "$bad" -eq 0 ] || fail "$coll: $rows verified rows, $bad others"
    log "   $coll: $rows verified results"
done
if "$G" emulate run "$A" -- "$BENCH" --collective bcast --algorithm binomial --bytes 64 --reps 2 --inject-error 2 \
    >"$TMP/inject.out" 2>&1; then
    fail "a corrupted broadcast across the testbed was not detected"
fi
grep -q "wrong result" "$TMP/inject.out" || fail "corruption: no 'wrong result' message"

# Starts a one-off testbed K running one rank of `sleep $SLEEP_ARG` in the background and waits until
# the rank runs; sets BG, SLOT_K, K_DAEMONS.
start_one_off() {
    "$G" emulate run "$PLATFORM" --name "$K" --no-check -n 1 -- sh -c "touch $TMP/$1; exec sleep $SLEEP_ARG" &
    BG=$!
    wait_file "$TMP/$1" 120 || fail "the one-off run did not start its program"
    SLOT_K=$(slot_of "$K")
    K_DAEMONS=$(daemons_of "$K")
}

log "4. SIGINT during a one-off run"
start_one_off ready1
kill -INT "$BG"
wait "$BG"
rc=$?
BG=""
[ "$rc" -ne 0 ] || fail "an interrupted run exited 0"
# shellcheck disable=SC2086
assert_gone "$K" "$SLOT_K" $K_DAEMONS

log "5. SIGKILL leaves a testbed; the next up removes it"
start_one_off ready2
kill -9 "$BG"
wait "$BG" 2>/dev/null
BG=""
[ -e "$ROOT/$K/state" ] || fail "SIGKILL: expected the testbed to be left behind"
"$G" emulate up "$PLATFORM" --name "$B" --no-check 2>"$TMP/up.err" || { cat "$TMP/up.err" >&2; fail "up after a killed run"; }
grep -q "removing testbed '$K' (left by a run that was killed" "$TMP/up.err" || { cat "$TMP/up.err" >&2; fail "up did not report the leftover"; }
SLOT_B=$(slot_of "$B")
B_DAEMONS=$(daemons_of "$B")
"$G" emulate down "$B" || fail "down $B"
# (B may have taken K's freed slot: check both once B is down.)
# shellcheck disable=SC2086
assert_gone "$K" "$SLOT_K" $K_DAEMONS
# shellcheck disable=SC2086
assert_gone "$B" "$SLOT_B" $B_DAEMONS

log "6. down"
A_DAEMONS=$(daemons_of "$A")
"$G" emulate down "$A" || fail "down $A"
# shellcheck disable=SC2086
assert_gone "$A" "$SLOT_A" $A_DAEMONS
log "PASS"
