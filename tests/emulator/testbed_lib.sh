# Shared by the root checks of one testbed (faults_check.sh, containers_check.sh,
# dilation_check.sh); source it, do not run it. Needs G (the gridcoll program) set.

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

# Exit 77 (ctest: skipped) without root, /dev/net/tun or one of the programs named.
tb_require() {
    if [ "$(id -u)" -ne 0 ]; then log "SKIP: needs root (network namespaces)"; exit 77; fi
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { log "SKIP: '$tool' is not installed"; exit 77; }
    done
    [ -c /dev/net/tun ] || { log "SKIP: no /dev/net/tun"; exit 77; }
}

# Sets ROOT (the state root), N (the testbed's name, ci-TAG-<pid>) and TMP (a scratch directory),
# and installs the trap that takes the testbed down and removes TMP on any exit.
tb_start() {
    ROOT="${GRIDCOLL_STATE_ROOT:-/run/gridcoll}"
    N="ci-$1-$$"
    TMP="$(mktemp -d "/tmp/gc$1.XXXXXX")"
    trap tb_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

tb_cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    [ -e "$ROOT/$N/state" ] && "$G" emulate down "$N" >/dev/null 2>&1
    rm -rf "$TMP"
    exit "$rc"
}
