# Shared by delayline_check.sh and delayline_bench.sh (source it, do not run it).
#
# Two network namespaces, gcdl-a-<pid> and gcdl-b-<pid>, each with one persistent TAP gcdl0
# (198.18.0.1/24 in A, 198.18.0.2/24 in B, addresses from the benchmarking range 198.18.0.0/15),
# and a gridcoll-delayline between the two TAPs. The TAPs are persistent so that the delay line
# can be restarted with other settings while addresses and routes stay. dl_cleanup (installed as
# an EXIT/INT/TERM trap by dl_init) stops every process started here and deletes the namespaces,
# which deletes the TAPs with them.

DL_NS_A="gcdl-a-$$"
DL_NS_B="gcdl-b-$$"
DL_TAP=gcdl0
DL_IP_A=198.18.0.1
DL_IP_B=198.18.0.2
DL_PID=""
DL_PIDS=()          # other background processes (iperf3 servers ...)
DL_TMP=""
DL_BIN=""
DL_WRAP=()          # command prefix for the delay line, e.g. (nice -n -20)
DL_MTU=1500
DL_OFFLOAD=0

dl_log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# Exit 77 (ctest: skipped) when the machine cannot run this test.
dl_require() {
    if [ "$(id -u)" -ne 0 ]; then dl_log "SKIP: needs root (network namespaces, TAP devices)"; exit 77; fi
    if [ ! -c /dev/net/tun ]; then dl_log "SKIP: no /dev/net/tun"; exit 77; fi
    local tool
    for tool in ip ping "$@"; do
        if ! command -v "$tool" >/dev/null; then
            dl_log "SKIP: '$tool' is not installed (apt-get install -y iproute2 iputils-ping iperf3)"
            exit 77
        fi
    done
}

# dl_find_bin [path]: the delay line binary, given or from a build directory.
dl_find_bin() {
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    if [ -n "${1:-}" ]; then DL_BIN="$1"; else
        for c in "$root"/build/bin/gridcoll-delayline; do
            if [ -x "$c" ]; then DL_BIN="$c"; break; fi
        done
    fi
    if [ -z "$DL_BIN" ] || [ ! -x "$DL_BIN" ]; then
        dl_log "FAIL: gridcoll-delayline not found (build it, or pass its path)"; exit 1
    fi
}

dl_cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    dl_stop_delayline
    local p
    for p in "${DL_PIDS[@]}"; do
        kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
    done
    DL_PIDS=()
    # Anything still running inside our namespaces (by namespace, so only our own processes).
    local ns
    for ns in "$DL_NS_A" "$DL_NS_B"; do
        if ip netns list | grep -qw "$ns"; then
            for p in $(ip netns pids "$ns" 2>/dev/null); do kill "$p" 2>/dev/null; done
            ip netns del "$ns" 2>/dev/null
        fi
    done
    [ -n "$DL_TMP" ] && rm -rf "$DL_TMP"
    exit "$rc"
}

dl_init() {
    trap dl_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    DL_TMP="$(mktemp -d /tmp/gcdl.XXXXXX)"
    local ns ip
    for ns in "$DL_NS_A" "$DL_NS_B"; do
        ip netns add "$ns"
        ip -n "$ns" link set lo up
        # No IPv6 chatter (router solicitations, MLD) in the measurements.
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        # TCP buffers for a large bandwidth-delay product (1 Gbit/s x 20 ms = 2.5 MB).
        ip netns exec "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 67108864" \
            net.ipv4.tcp_wmem="4096 65536 67108864"
    done
    dl_make_taps
}

# (Re)creates the TAPs with the current DL_MTU / DL_OFFLOAD.
dl_make_taps() {
    local ns ip
    for ns in "$DL_NS_A" "$DL_NS_B"; do
        ip -n "$ns" link del "$DL_TAP" 2>/dev/null
        if [ "$DL_OFFLOAD" = 1 ]; then
            ip -n "$ns" tuntap add dev "$DL_TAP" mode tap vnet_hdr
        else
            ip -n "$ns" tuntap add dev "$DL_TAP" mode tap
        fi
        ip="$DL_IP_A"; [ "$ns" = "$DL_NS_B" ] && ip="$DL_IP_B"
        ip -n "$ns" link set "$DL_TAP" mtu "$DL_MTU" up
        ip -n "$ns" addr add "$ip/24" dev "$DL_TAP"
    done
    # Static neighbours: no ARP through the delay line (ARP frames could be lost on lossy runs).
    local mac_a mac_b
    mac_a=$(ip -n "$DL_NS_A" -o link show "$DL_TAP" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
    mac_b=$(ip -n "$DL_NS_B" -o link show "$DL_TAP" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
    ip -n "$DL_NS_A" neigh replace "$DL_IP_B" lladdr "$mac_b" dev "$DL_TAP" nud permanent
    ip -n "$DL_NS_B" neigh replace "$DL_IP_A" lladdr "$mac_a" dev "$DL_TAP" nud permanent
}

# dl_start_delayline ARGS...: starts the delay line between the two TAPs, waits until it runs.
dl_start_delayline() {
    dl_stop_delayline
    local extra=()
    [ "$DL_OFFLOAD" = 1 ] && extra+=(--offload)
    rm -f "$DL_TMP/ready"
    "${DL_WRAP[@]}" "$DL_BIN" --netns-a "$DL_NS_A" --tap-a "$DL_TAP" --netns-b "$DL_NS_B" --tap-b "$DL_TAP" \
        --ready-file "$DL_TMP/ready" "${extra[@]}" "$@" 2>"$DL_TMP/delayline.log" &
    DL_PID=$!
    local i
    for i in $(seq 1 100); do
        [ -e "$DL_TMP/ready" ] && break
        if ! kill -0 "$DL_PID" 2>/dev/null; then
            cat "$DL_TMP/delayline.log" >&2
            dl_log "FAIL: the delay line did not start"; DL_PID=""; return 1
        fi
        sleep 0.05
    done
    [ -e "$DL_TMP/ready" ] || { dl_log "FAIL: the delay line is not ready after 5 s"; return 1; }
    sed 's/^/    /' "$DL_TMP/delayline.log" >&2
}

# Stops the delay line (SIGTERM, clean exit) and shows its final statistics.
dl_stop_delayline() {
    [ -n "$DL_PID" ] || return 0
    kill -TERM "$DL_PID" 2>/dev/null
    local rc=0
    wait "$DL_PID" 2>/dev/null || rc=$?
    DL_PID=""
    grep -E "final|error" "$DL_TMP/delayline.log" | sed 's/^/    /' >&2
    if [ "$rc" -ne 0 ]; then dl_log "delay line exited with status $rc"; return 1; fi
}

# dl_ping ARGS...: ping from A to B; prints ping's output.
dl_ping() { ip netns exec "$DL_NS_A" ping -n "$@" "$DL_IP_B"; }

# Float comparison helper: dl_within VALUE LOW HIGH -> status 0 if LOW <= VALUE <= HIGH.
dl_within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
