#!/usr/bin/env bash
# End-to-end check of gridcoll-delayline in two network namespaces (root only).
#
#   tests/emulator/delayline_check.sh [path/to/gridcoll-delayline]
#
# A (gcdl-a-<pid>, 198.18.0.1) <-> TAP <-> gridcoll-delayline <-> TAP <-> B (gcdl-b-<pid>, 198.18.0.2)
#
#  0. TAP handling: TAPs the delay line creates (in their namespaces, with --mtu) are up and
#     disappear when it stops on SIGTERM (exit status 0); already-open TAP fds are accepted.
#  1. delay: 10 ms each way; 20 pings; the lower quartile (at least 5 of the 20 RTTs) within
#     20 ms + the path's own median RTT at delay 0 +- 0.4 ms, none below 20 ms. A loaded
#     machine can hold any process off the CPU now and then, which only ever makes a frame
#     late, never early: the fastest RTTs are the ones that show the configured delay (a
#     second sample where the first misses, as for the acknowledgements).
#  2. rate: 10 ms each way, 200 Mbit/s, a 2000-frame queue; iperf3 sends UDP A->B at 300
#     Mbit/s in 32000-byte datagrams (IP fragments them into full frames: one send for 22
#     frames, so a sender sharing its core still keeps the queue full); the bytes B's TAP
#     receives (whole frames, as the token bucket charges them) over 8 s are within -3 % / +2 %
#     of the rate. The queue stays full, so a line held off the CPU for less than the queue's
#     120 ms (a busy VM does that now and then, whatever the line's priority) sends the frames
#     that became due meanwhile when it runs again and loses no capacity; a TCP run's goodput
#     here depended on that and on TCP's own dynamics (1-s dips to 150 Mbit/s without loss),
#     which made it a poor judge of the shaper. TCP through the line is step 4's subject.
#  3. loss: 10 ms each way, 5 % loss A->B only; 10000 numbered UDP datagrams A->B; observed
#     loss within +-20 % relative (4 % .. 6 %).
#  4. acknowledgements: 8 Mbit/s, 10 ms, a 98 KiB queue, --acks-skip; iperf3 TCP both ways at
#     once; the senders' mean round trip at most 56 ms (20 ms + their own queue, not the other
#     way's too) and each way's goodput at least 90 % of the rate times payload/frame (a
#     second run where the first misses: TCP's sawtooth moves the round trip from run to run).
# Everything created (namespaces, TAPs, processes) is removed on exit, also on failure or ^C.
# Exit status: 0 all good, 1 a check missed, 77 cannot run here (not root, no TAP, no iperf3).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/delayline_lib.sh"

DELAY_MS=10
RTT_TOL_MS=0.4
RATE_MBIT=200
RATE_OFFER_MBIT=300  # UDP offered to the line: half as much again as it passes
RATE_LIMIT=2000p     # its queue: 120 ms of frames at the rate (see step 2)
RATE_WINDOW_S=8      # B's TAP counted over this long
RATE_LOW=0.97        # frames delivered / rate: a line 15 % slow misses,
RATE_HIGH=1.02       # ... and one that passes the 300 Mbit/s unshaped
LOSS=0.05
LOSS_TOL=0.20
MIN_INSIDE=5       # of 20 RTTs within the tolerance: the lower quartile (see below)
failures=0
# SCHED_FIFO keeps other processes from delaying frames on a loaded machine. At these rates the
# delay line needs well under a core (busy waiting is capped at 25 % of the time), so real-time
# throttling (95 % of a core) never applies.
DL_OPTS=(--realtime 10)

dl_require iperf3
dl_find_bin "${1:-}"
dl_init
miss() { dl_log "MISS: $*"; failures=$((failures + 1)); }
ok() { dl_log "ok: $*"; }

# --- 0. TAP handling --------------------------------------------------------------------------
dl_log "0. TAPs created by the delay line (MTU 9000, up) vanish when it stops; inherited fds work"
dl_run_own() {  # start the delay line on TAPs it creates itself, in the background
    "$DL_BIN" --netns-a "$DL_NS_A" --tap-a gcdlx --netns-b "$DL_NS_B" --tap-b gcdly --mtu 9000 \
        --ready-file "$DL_TMP/ready0" 2>"$DL_TMP/own.log" &
    DL_PID=$!
}
rm -f "$DL_TMP/ready0"
dl_run_own
for i in $(seq 1 100); do [ -e "$DL_TMP/ready0" ] && break; sleep 0.05; done
if ip -n "$DL_NS_A" link show gcdlx 2>/dev/null | grep -q "mtu 9000.*UP\|UP.*mtu 9000" &&
    ip -n "$DL_NS_B" link show gcdly 2>/dev/null | grep -q "mtu 9000"; then
    ok "TAPs gcdlx / gcdly created in their namespaces, MTU 9000, up"
else miss "TAPs not created as asked"; cat "$DL_TMP/own.log" >&2; fi
kill -TERM "$DL_PID"; rc=0; wait "$DL_PID" || rc=$?; DL_PID=""
if [ "$rc" -eq 0 ] && ! ip -n "$DL_NS_A" link show gcdlx >/dev/null 2>&1 && ! ip -n "$DL_NS_B" link show gcdly >/dev/null 2>&1
then ok "SIGTERM: clean exit (status 0), TAPs gone"
else miss "SIGTERM: status $rc, or a TAP is left"; fi
# Already-open descriptors: a helper opens two TAPs in namespace A and hands them over.
ip netns exec "$DL_NS_A" /usr/bin/python3 - "$DL_BIN" "$DL_TMP/ready1" >"$DL_TMP/fd.log" 2>&1 <<'PY' &
import fcntl, os, struct, subprocess, sys, time
def tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, 0x400454CA, struct.pack("16sH", name.encode(), 0x0002 | 0x1000))  # TUNSETIFF, IFF_TAP|IFF_NO_PI
    return fd
a, b = tap("gcdlfa"), tap("gcdlfb")
p = subprocess.Popen([sys.argv[1], "--fd-a", str(a), "--fd-b", str(b), "--ready-file", sys.argv[2]], pass_fds=(a, b))
for _ in range(100):
    if os.path.exists(sys.argv[2]): break
    time.sleep(0.05)
p.terminate()
sys.exit(p.wait())
PY
fdpid=$!
DL_PIDS+=($fdpid)
rc=0; wait "$fdpid" || rc=$?
if [ "$rc" -eq 0 ] && grep -q "inherited tap gcdlfa" "$DL_TMP/fd.log"; then ok "inherited TAP descriptors: forwarded and exited cleanly"
else miss "inherited TAP descriptors (status $rc)"; cat "$DL_TMP/fd.log" >&2; fi

# --- 1. delay ------------------------------------------------------------------------------
# The path itself (two TAPs and the delay line's forwarding each way) takes some 0.1-0.3 ms on
# a shared machine: its median RTT at delay 0 is the base the added 2 x delay is checked against.
median_of() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
dl_start_delayline "${DL_OPTS[@]}" --delay 0ms || exit 1
dl_ping -c 2 -i 0.2 -W 2 >/dev/null
base=$(dl_ping -c 20 -i 0.2 -W 2 | sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | median_of)
dl_stop_delayline
[ -n "$base" ] || { miss "delay: no replies at delay 0"; base=0; }
dl_log "1. delay ${DELAY_MS} ms each way: 20 pings, expect RTT $((2 * DELAY_MS)) ms + the path's ${base} ms +- ${RTT_TOL_MS} ms"
lo=$(awk -v d=$DELAY_MS -v b="$base" -v t=$RTT_TOL_MS 'BEGIN { print 2 * d + b - t }')
hi=$(awk -v d=$DELAY_MS -v b="$base" -v t=$RTT_TOL_MS 'BEGIN { print 2 * d + b + t }')
# One sample of 20 pings through the delay line: $n replies, $msg, and $delay_ok (yes / no).
# No RTT below 2 x delay (the delay is never shortened) and at least 5 of 20 inside the
# tolerance: on a busy machine the kernel (PREEMPT_NONE) can hold the delay line, or the
# pinging process, off the CPU for a while now and then, whatever the priority, and that only
# adds. Fresh-clone CI of 2026-11-27 (second run): 11 and 10 of 20 inside, medians 20.35 and
# 20.65 ms, the rest late by up to 12 ms. A line delaying 10.3 ms or more per way has none
# inside; one delaying less has RTTs below 20 ms.
delay_run() {
    dl_start_delayline "${DL_OPTS[@]}" --delay ${DELAY_MS}ms || exit 1
    dl_ping -c 2 -i 0.2 -W 2 >/dev/null  # warm-up
    local out rtts median inside early
    out=$(dl_ping -c 20 -i 0.2 -W 2)
    rtts=$(echo "$out" | sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p')
    n=$(echo "$rtts" | grep -c .)
    dl_log "   $(echo "$out" | tail -1)"
    dl_log "   RTTs: $(echo "$rtts" | tr '\n' ' ')"
    median=$(echo "$rtts" | median_of)
    inside=$(echo "$rtts" | awk -v lo="$lo" -v hi="$hi" '$1 >= lo && $1 <= hi' | grep -c .)
    early=$(echo "$rtts" | awk -v d=$DELAY_MS '$1 < 2 * d' | grep -c .)
    msg="$inside/20 RTTs in [$lo, $hi] ms, median $median ms (path $base ms), none below $((2 * DELAY_MS)) ms: $([ "$early" -eq 0 ] && echo yes || echo "no ($early)")"
    delay_ok=yes
    if [ "$n" -ne 20 ] || [ "$inside" -lt "$MIN_INSIDE" ] || [ "$early" -ne 0 ]; then delay_ok=no; fi
    dl_stop_delayline
}
# A second sample where the first misses: fresh-clone CI of 2026-11-27 had 12 of 20 inside, all
# late by up to 2.4 ms, with the line's own p99 lateness at 2.1 ms (held off this shared VM's
# CPU). A delay line that delays wrong misses both.
delay_run
if [ "$delay_ok" != yes ]; then
    dl_log "   first sample missed ($msg); once more"
    delay_run
fi
if [ "$n" -ne 20 ]; then miss "delay: $n of 20 replies"
elif [ "$delay_ok" != yes ]; then miss "delay: $msg"
else ok "delay: $msg"; fi

# --- 2. rate -------------------------------------------------------------------------------
dl_log "2. rate ${RATE_MBIT} Mbit/s, delay ${DELAY_MS} ms each way: UDP A->B at ${RATE_OFFER_MBIT} Mbit/s, B's TAP counted for ${RATE_WINDOW_S} s"
# iperf3's server in B listening on port 5201 (polled: at most 5 s).
iperf3_server() {
    ip netns exec "$DL_NS_B" nice -n -5 iperf3 -s -1 -B "$DL_IP_B" >/dev/null 2>&1 &
    DL_PIDS+=($!)
    for _ in $(seq 1 100); do
        ip netns exec "$DL_NS_B" ss -ltnH "sport = :5201" 2>/dev/null | grep -q . && return 0
        sleep 0.05
    done
    miss "iperf3's server did not listen within 5 s"
    return 1
}
# "<clock ns> <bytes>": what B's TAP has received from the delay line (whole frames, as the
# line's token bucket charges them), read between two clock readings (their midpoint).
tap_b_sample() {
    local t0 t1 bytes
    t0=$(date +%s%N)
    bytes=$(ip -n "$DL_NS_B" -s -j link show "$DL_TAP" |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["bytes"])') || return 1
    t1=$(date +%s%N)
    echo "$(((t0 + t1) / 2)) $bytes"
}
# Polls until B's TAP has received `$1` bytes more than `$2` (at most 10 s).
tap_b_wait_for() {
    local sample
    for _ in $(seq 1 200); do
        sample=$(tap_b_sample) || return 1
        [ "${sample#* }" -ge $(($2 + $1)) ] && return 0
        sleep 0.05
    done
    return 1
}
dl_start_delayline "${DL_OPTS[@]}" --delay ${DELAY_MS}ms --rate ${RATE_MBIT}mbit --limit ${RATE_LIMIT} || exit 1
rate=""
if iperf3_server; then
    start=$(tap_b_sample | cut -d' ' -f2)
    ip netns exec "$DL_NS_A" nice -n -5 iperf3 -c "$DL_IP_B" -u -b ${RATE_OFFER_MBIT}M -l 32000 \
        -t $((RATE_WINDOW_S + 4)) >"$DL_TMP/rate_client.txt" 2>&1 &
    client=$!
    # The window opens once the queue has filled (the first 8 MB delivered, about 0.3 s).
    if tap_b_wait_for 8000000 "$start"; then
        read -r t1 b1 < <(tap_b_sample)
        sleep "$RATE_WINDOW_S"  # the measuring window itself, not a wait for an event
        read -r t2 b2 < <(tap_b_sample)
        rate=$(awk -v b=$((b2 - b1)) -v t=$((t2 - t1)) 'BEGIN { printf "%.0f", b * 8 / (t / 1e9) }')
    fi
    wait "$client" || miss "rate: iperf3's UDP client failed: $(tail -2 "$DL_TMP/rate_client.txt")"
fi
dl_stop_delayline
if [ -z "$rate" ]; then miss "rate: B's TAP received nothing from the delay line within 10 s"
else
    ratio=$(awk -v r="$rate" -v e=$((RATE_MBIT * 1000000)) 'BEGIN { printf "%.4f", r / e }')
    msg="B received $(awk -v r="$rate" 'BEGIN { printf "%.2f", r / 1e6 }') Mbit/s of frames, rate ${RATE_MBIT} Mbit/s (ratio $ratio; bounds [$RATE_LOW, $RATE_HIGH])"
    if dl_within "$ratio" $RATE_LOW $RATE_HIGH; then ok "rate: $msg"; else miss "rate: $msg"; fi
fi

# --- 3. loss -------------------------------------------------------------------------------
# UDP datagrams A->B, numbered; the receiver counts distinct numbers. (ping cannot be used at
# these rates: iputils ping sends little faster than one packet per RTT when -i < RTT.)
N_LOSS=10000
dl_log "3. loss $(awk -v l=$LOSS 'BEGIN { print l * 100 }') % A->B, delay ${DELAY_MS} ms each way: $N_LOSS UDP datagrams A->B"
dl_start_delayline "${DL_OPTS[@]}" --delay ${DELAY_MS}ms --ab loss=$LOSS --seed 7 || exit 1
ip netns exec "$DL_NS_B" /usr/bin/python3 - "$DL_IP_B" >"$DL_TMP/udp_received" <<'PY' &
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind((sys.argv[1], 5999))
s.settimeout(10.0)
seen = set()
try:
    while True:
        d, _ = s.recvfrom(2048)
        if d == b"END":
            s.settimeout(0.5)  # stragglers
            continue
        seen.add(struct.unpack("!I", d[:4])[0])
except socket.timeout:
    pass
print(len(seen))
PY
DL_PIDS+=($!)
receiver=$!
sleep 0.3
ip netns exec "$DL_NS_A" /usr/bin/python3 - "$DL_IP_B" "$N_LOSS" <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dst, n = (sys.argv[1], 5999), int(sys.argv[2])
pad = bytes(60)
t = time.monotonic()
for i in range(n):
    s.sendto(struct.pack("!I", i) + pad, dst)
    t += 0.0002  # 5000 datagrams per second
    while time.monotonic() < t:
        pass
for _ in range(50):  # the end marker crosses the lossy link too
    s.sendto(b"END", dst)
    time.sleep(0.001)
PY
wait "$receiver"
received=$(cat "$DL_TMP/udp_received")
if [ -z "$received" ]; then miss "loss: the UDP receiver reported nothing"
else
    observed=$(awk -v s=$N_LOSS -v r="$received" 'BEGIN { printf "%.4f", (s - r) / s }')
    lo=$(awk -v l=$LOSS -v t=$LOSS_TOL 'BEGIN { print l * (1 - t) }')
    hi=$(awk -v l=$LOSS -v t=$LOSS_TOL 'BEGIN { print l * (1 + t) }')
    msg="observed loss $observed ($((N_LOSS - received)) of $N_LOSS), expected $LOSS (+-$(awk -v t=$LOSS_TOL 'BEGIN { print t * 100 }') % relative: [$lo, $hi])"
    if dl_within "$observed" "$lo" "$hi"; then ok "loss: $msg"; else miss "loss: $msg"; fi
fi
dl_stop_delayline

# --- 4. acknowledgements skip the queue ---------------------------------------------------
# Both ways at once over das's WAN (8 Mbit/s, 10 ms, a 100 ms queue): with --acks-skip each
# way's acknowledgements do not wait behind the other way's data, so a connection's round trip
# is 20 ms plus its own queue (senders' mean 40-47 ms here), not plus the other way's too (64-68
# ms with the acknowledgements queued); each way keeps at least 90 % of its rate (0.96 here).
# TCP's sawtooth moves the senders' mean round trip from run to run (39 to 54 ms with the
# acknowledgements skipping, 2026-11-28): a second run where the first misses; queued
# acknowledgements (64-68 ms) miss both.
ACK_RATE_MBIT=8
ACK_MIN=0.90
ACK_MAX_RTT_MS=56
dl_log "4. acknowledgements skip: ${ACK_RATE_MBIT} Mbit/s, ${DELAY_MS} ms, 98 KiB queue, iperf3 --bidir 13 s (3 s omitted)"
expected=$(awk -v r=$ACK_RATE_MBIT -v m="$DL_MTU" 'BEGIN { printf "%.0f", r * 1e6 * (m - 52) / (m + 14) }')
# One 13 s run both ways at once: "ok" or "miss", then the message, in $ack_verdict / $ack_msg.
ack_run() {
    dl_start_delayline "${DL_OPTS[@]}" --delay ${DELAY_MS}ms --rate ${ACK_RATE_MBIT}mbit --limit 98K --reorder --acks-skip || exit 1
    iperf3_server || exit 1
    local json ways ab ba rtt worst
    json=$(ip netns exec "$DL_NS_A" nice -n -5 iperf3 -c "$DL_IP_B" -t 13 -O 3 --bidir -J)
    ways=$(echo "$json" | /usr/bin/python3 -c 'import json,sys; e=json.load(sys.stdin)["end"]; print(e["sum_received"]["bits_per_second"], e["sum_received_bidir_reverse"]["bits_per_second"], max(s["sender"]["mean_rtt"] for s in e["streams"] if "sender" in s and "mean_rtt" in s["sender"]) / 1000)' 2>/dev/null)
    dl_stop_delayline
    if [ -z "$ways" ]; then
        ack_verdict=miss ack_msg="iperf3 --bidir gave no result"; echo "$json" | tail -5 >&2; return
    fi
    read -r ab ba rtt <<<"$ways"
    worst=$(awk -v a="$ab" -v b="$ba" -v e="$expected" 'BEGIN { m = a < b ? a : b; printf "%.4f", m / e }')
    ack_msg="A->B $(awk -v g="$ab" 'BEGIN { printf "%.2f", g / 1e6 }') and B->A $(awk -v g="$ba" 'BEGIN { printf "%.2f", g / 1e6 }') Mbit/s at once, expected $(awk -v e="$expected" 'BEGIN { printf "%.2f", e / 1e6 }') each (worst ratio $worst, at least $ACK_MIN); senders' mean round trip at most $rtt ms (at most $ACK_MAX_RTT_MS)"
    ack_verdict=miss
    dl_within "$worst" "$ACK_MIN" 1.05 && dl_within "$rtt" 0 "$ACK_MAX_RTT_MS" && ack_verdict=ok
}
ack_run
if [ "$ack_verdict" != ok ]; then
    dl_log "   first run missed ($ack_msg); once more"
    ack_run
fi
if [ "$ack_verdict" = ok ]; then ok "acknowledgements: $ack_msg"; else miss "acknowledgements: $ack_msg"; fi

if [ "$failures" -ne 0 ]; then dl_log "FAILED: $failures check(s) missed"; exit 1; fi
dl_log "PASSED: delay, rate, loss and acknowledgements"
exit 0
