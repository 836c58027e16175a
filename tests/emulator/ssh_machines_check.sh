#!/usr/bin/env bash
# A testbed over machines reached by SSH, with two machines made here (root; ctest label
# emulator-root; exit 77 = skipped). Machine A is a network namespace the controller runs in;
# machine B a network namespace with a mount namespace of its own (its own /run/gridcoll, its own
# testbed namespaces, invisible to A), joined to A by a veth; `ssh` is a stand-in on PATH that
# runs the remote command in B (or A) through a shell, as ssh does. So the controller's code is the
# one that meets real machines: B brings up its part with `emulate up --part 1`, the rsh agent
# hands B's hosts to B's agent, the fidelity check and teardown reach B through ssh.
#   1. das-4x2 comes up over A and B and passes its fidelity check across the machines;
#   2. B's testbed namespaces exist in B only;
#   3. a bench across both machines verifies its results;
#   4. down removes both parts: nothing of the testbed is left on A or B.
# usage: ssh_machines_check.sh GRIDCOLL PLATFORM
set -u
G="$1"
PLATFORM="$2"

. "$(dirname "$0")/testbed_lib.sh"
tb_require ip tc nsenter unshare mpirun
tb_start s
A=gcf$$-a
B=gcf$$-b
ADDR_A=198.19.250.1
ADDR_B=198.19.250.2
BPID=""

fake_cleanup() {
    [ -e "$ROOT/$N/state" ] && in_a "$G" emulate down "$N" >/dev/null 2>&1
    if [ -n "$BPID" ]; then
        in_b sh -c 'for n in $(ip netns list | grep -o "^gc[0-9]-[^ ]*"); do ip netns del $n; done' 2>/dev/null
        kill -9 "$BPID" 2>/dev/null
    fi
    ip netns del "$A" 2>/dev/null
    ip netns del "$B" 2>/dev/null
    tb_cleanup
}
trap fake_cleanup EXIT
in_a() { nsenter --net="/run/netns/$A" -- env PATH="$TMP/bin:$PATH" "$@"; }
in_b() { nsenter --target "$BPID" --net --mount --pid -- env PATH="$TMP/bin:$PATH" "$@"; }

# The two machines and the network between them. B: its own network, mount and PID namespaces
# (an init holds them), with its own /run/netns, /run/gridcoll and /proc.
ip netns add "$A" && ip netns add "$B" || fail "machines' namespaces"
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B" || fail "veth"
ip -n "$A" addr add $ADDR_A/24 dev eth0 && ip -n "$B" addr add $ADDR_B/24 dev eth0 || fail "addresses"
for m in "$A" "$B"; do ip -n "$m" link set eth0 up; ip -n "$m" link set lo up; done
mkdir -p "$TMP/bin" /run/netns /run/gridcoll
nsenter --net="/run/netns/$B" -- unshare --mount --pid --fork --propagation private sh -c \
    'mount -t tmpfs tmpfs /run/netns && mount -t tmpfs tmpfs /run/gridcoll && mount -t proc proc /proc && exec sleep infinity' 2>/dev/null &
outer=$!
for _ in $(seq 50); do BPID=$(pgrep -P "$outer" sleep || true); [ -n "$BPID" ] && break; sleep 0.1; done
[ -n "$BPID" ] || fail "machine B's init did not start"
# ssh: skip options, pick the machine by its address, run the words through a shell there.
cat >"$TMP/bin/ssh" <<SSH
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do [ "\$1" = -o ] && shift; shift; done
dest=\${1#*@}; shift
[ "\$1" = -- ] && shift
case "\$dest" in
  $ADDR_A) exec nsenter --net=/run/netns/$A -- sh -c "\$*" ;;
  $ADDR_B) exec nsenter --target $BPID --net --mount --pid -- sh -c "\$*" ;;
esac
echo "ssh: no machine \$dest" >&2; exit 255
SSH
chmod +x "$TMP/bin/ssh"
log "machines A ($ADDR_A) and B ($ADDR_B) ready"

in_a "$G" emulate up "$PLATFORM" --name "$N" --machines $ADDR_A,$ADDR_B --transfer 2 >"$TMP/up.log" 2>&1 ||
    { cat "$TMP/up.log" >&2; fail "up over ssh, or its fidelity check"; }
grep -q "bringing up machine 1 ($ADDR_B) over ssh" "$TMP/up.log" || fail "B's part was not brought up over ssh"
grep -q 'across machines .* ok' "$TMP/up.log" || { cat "$TMP/up.log" >&2; fail "no path class across machines checked"; }
log "ok: up over A and B, fidelity checked across them"

b_ns=$(in_b ip netns list | grep -c "^gc[0-9]-h-")
a_ns=$(ip netns list | grep -c "^gc[0-9]-h-")
[ "$b_ns" -gt 0 ] && [ "$a_ns" -gt 0 ] || fail "hosts on A: $a_ns, on B: $b_ns"
[ "$a_ns" -eq "$(grep -c '^uts=' "$ROOT/$N/state")" ] || fail "A's state does not list exactly A's hosts"
[ "$b_ns" -eq "$(in_b grep -c '^uts=' "/run/gridcoll/$N/state")" ] || fail "B's state does not list exactly B's hosts"
log "ok: $a_ns hosts on A, $b_ns on B (B's invisible to A)"

in_a "$G" emulate bench "$N" -c bcast -b 64K --root 0 -a wanstream,native -r 3 >"$TMP/bench.csv" 2>"$TMP/bench.log" ||
    { cat "$TMP/bench.log" >&2; fail "bench across A and B"; }
[ "$(grep -c ',yes,' "$TMP/bench.csv")" -eq 2 ] || { cat "$TMP/bench.csv" >&2; fail "bench rows not verified"; }
log "ok: bench across both machines verified"

in_a "$G" emulate down "$N" >"$TMP/down.log" 2>&1 || { cat "$TMP/down.log" >&2; fail "down"; }
[ -z "$(ip netns list | grep '^gc[0-9]-')" ] || fail "namespaces left on A"
[ -z "$(in_b ip netns list | grep '^gc[0-9]-')" ] || fail "namespaces left on B"
in_b test -e "/run/gridcoll/$N" && fail "B's state left"
log "PASS"
