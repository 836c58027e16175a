#!/usr/bin/env bash
# Benchmark of gridcoll-delayline alone, 10 ms delay each way, no other impairment (root only).
#
#   tests/emulator/delayline_bench.sh [path/to/gridcoll-delayline]
#   DL_BENCH_CONFIGS="1500:off 9000:off" DL_BENCH_OPTS="--cpu 1" tests/emulator/delayline_bench.sh
#
# For each TAP configuration (MTU : offloads), in two namespaces as in delayline_check.sh:
#   max    iperf3 TCP A->B for 10 s (2 s left out): the highest throughput through the delay
#          line, its CPU use (share of one core) and CPU time per frame.
#   paced  iperf3 TCP A->B paced at 1 Gbit/s (-b 1G) with a ping every 10 ms alongside: the
#          throughput reached, and the latency added on top of the 20 ms RTT (RTT - 20 ms: min,
#          mean, standard deviation (ping's mdev), 99th percentile, max), which is the delay
#          line's added delay and jitter under load plus the kernel's own path; also the delay
#          line's lateness when handing frames to the kernel (p50 / p99 / max, its statistics).
# Every figure is printed as a table at the end. Nothing is left behind (trap).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/delayline_lib.sh"

CONFIGS=(${DL_BENCH_CONFIGS:-1500:off 9000:off 65000:off 1500:on})
EXTRA=(${DL_BENCH_OPTS:-})
DURATION=10

dl_require iperf3
dl_find_bin "${1:-}"
dl_init

clk_tck=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
rx_frames() { grep -o "final A->B rx [0-9]*" "$DL_TMP/delayline.log" | awk '{ print $4 }'; }
late_field() { grep "final A->B" "$DL_TMP/delayline.log" | sed -n "s/.* $1 <\{0,1\}\([^ ]*\).*/\1/p" | head -1; }

# The floor: how late this machine wakes a sleeping thread right now (same priority options).
baseline=$("$DL_BIN" --measure-wakeup 5s "${EXTRA[@]}" 2>&1 | tail -1)
dl_log "machine: $baseline"
# The path without delay: RTT of the same ping through the delay line at 0 ms.
dl_make_taps
dl_start_delayline --delay 0 "${EXTRA[@]}" || exit 1
rtt0=$(dl_ping -q -c 200 -i 0.01 | sed -n 's|.* = \([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\) ms.*|min \1 avg \2 max \3 mdev \4 ms|p')
dl_stop_delayline
dl_log "RTT through the delay line with 0 delay, idle: $rtt0"

results=()
for cfg in "${CONFIGS[@]}"; do
    DL_MTU=${cfg%%:*}
    [ "${cfg##*:}" = on ] && DL_OFFLOAD=1 || DL_OFFLOAD=0
    dl_log "=== MTU $DL_MTU, offloads ${cfg##*:}"
    dl_make_taps

    # --- max throughput ---
    dl_start_delayline --delay 10ms "${EXTRA[@]}" || exit 1
    ip netns exec "$DL_NS_B" iperf3 -s -1 -B "$DL_IP_B" >/dev/null 2>&1 &
    DL_PIDS+=($!)
    sleep 0.5
    t0=$(cpu_ticks "$DL_PID"); w0=$(date +%s.%N)
    json=$(ip netns exec "$DL_NS_A" iperf3 -c "$DL_IP_B" -t $DURATION -O 2 -J)
    t1=$(cpu_ticks "$DL_PID"); w1=$(date +%s.%N)
    dl_stop_delayline
    max_gbit=$(echo "$json" | /usr/bin/python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))' 2>/dev/null || echo "?")
    retr=$(echo "$json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_sent"].get("retransmits", "?"))' 2>/dev/null || echo "?")
    frames=$(rx_frames)
    cpu=$(awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$clk_tck" 'BEGIN { printf "%.0f", (b - a) / hz / (w1 - w0) * 100 }')
    us_per_frame=$(awk -v a="$t0" -v b="$t1" -v hz="$clk_tck" -v f="${frames:-0}" 'BEGIN { if (f > 0) printf "%.2f", (b - a) / hz / f * 1e6; else print "?" }')
    dl_log "   max: $max_gbit Gbit/s (TCP retransmits $retr), delay line CPU $cpu % of a core, $us_per_frame us per frame (A->B frames $frames)"

    # --- 1 Gbit/s paced, with pings ---
    dl_start_delayline --delay 10ms "${EXTRA[@]}" || exit 1
    ip netns exec "$DL_NS_B" iperf3 -s -1 -B "$DL_IP_B" >/dev/null 2>&1 &
    DL_PIDS+=($!)
    sleep 0.5
    ip netns exec "$DL_NS_A" iperf3 -c "$DL_IP_B" -t $((DURATION + 2)) -b 1G -J >"$DL_TMP/paced.json" &
    client=$!
    DL_PIDS+=($client)
    sleep 2  # past slow start
    pingout=$(dl_ping -c $((DURATION * 100)) -i 0.01 -W 1)
    wait "$client"
    dl_stop_delayline
    paced_gbit=$(/usr/bin/python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9))' "$DL_TMP/paced.json" 2>/dev/null || echo "?")
    # ping prints each RTT to 0.1 ms above 10 ms but its summary to the microsecond.
    read -r add_min add_avg add_max add_mdev <<<"$(echo "$pingout" | sed -n 's|.* = \([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\) ms.*|\1 \2 \3 \4|p' |
        awk '{ printf "%.0f %.0f %.0f %.0f", ($1 - 20) * 1000, ($2 - 20) * 1000, ($3 - 20) * 1000, $4 * 1000 }')"
    add_p99=$(echo "$pingout" | sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -g |
        awk '{ v[NR] = ($1 - 20) * 1000 } END { i = int(NR * 0.99); if (i < 1) i = 1; if (NR) printf "%.0f", v[i]; else print "?" }')
    late50=$(late_field p50); late99=$(late_field p99); latemax=$(late_field max)
    dl_log "   1G paced: $paced_gbit Gbit/s; RTT - 20 ms: min ${add_min:-?} avg ${add_avg:-?} p99 ${add_p99} max ${add_max:-?} us, mdev ${add_mdev:-?} us; delay line lateness A->B p50 <$late50 p99 <$late99 max $latemax"
    results+=("$(printf "%-6s %-4s %7s %6s %9s | %7s %6s %6s %6s %7s %7s | %8s %8s %9s" \
        "$DL_MTU" "${cfg##*:}" "$max_gbit" "$cpu%" "$us_per_frame" "$paced_gbit" "${add_min:-?}" "${add_avg:-?}" \
        "${add_mdev:-?}" "$add_p99" "${add_max:-?}" "$late50" "$late99" "$latemax")")
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "gridcoll-delayline benchmark: 10 ms delay each way, $(nproc) cores, load average $load, options: ${EXTRA[*]:-(defaults)}"
echo "machine $baseline"
echo "RTT with 0 delay (idle): $rtt0"
printf "%-6s %-4s %7s %6s %9s | %7s %6s %6s %6s %7s %7s | %8s %8s %9s\n" \
    MTU TSO "max" "CPU" "CPU per" "paced" "RTT+" "RTT+" "RTT" "RTT+" "RTT+" "late" "late" "late"
printf "%-6s %-4s %7s %6s %9s | %7s %6s %6s %6s %7s %7s | %8s %8s %9s\n" \
    "" "" "Gbit/s" "core" "frame us" "Gbit/s" "min us" "avg us" "mdev" "p99 us" "max us" "p50" "p99" "max"
for r in "${results[@]}"; do echo "$r"; done
