#!/usr/bin/env bash
# Topology discovery figures (paper 003's ECO, every level; gridcoll/discovery.hpp).
#   smpi     every shipped platform with block and round-robin placement under SMPI: is the
#            discovered partition the platform's at every level, pairs timed, wall time;
#            then 128, 512 and 1024 ranks of the 32-site grid (pairs timed against P(P-1)/2).
#   emulate  (root, network namespaces) das-4x2 and a three-level testbed on the emulated WAN,
#            real Open MPI and kernels, with one busy loop per core running beside the
#            measurement; each run compares its result with `gridcoll platform ranks`. The
#            delay lines run with SCHED_FIFO (--realtime) so that the hogs slow the measured
#            ranks, not the emulated wires, and every pair is the minimum of 40 exchanges
#            (with 20, a fresh-clone CI run on this loaded VM, 2026-11-28, found 6 clusters at
#            the three-level testbed's level 2, not 4).
# Usage: validation/discovery_figures.sh [smpi|emulate]...   (default: smpi, and emulate as root)
# Environment: GRIDCOLL (the gridcoll program). Needs the build (scripts/build.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gc=${GRIDCOLL:-$here/build/bin/gridcoll}
bin=$(dirname "$gc")
if [ $# -eq 0 ]; then
  set -- smpi
  [ "$(id -u)" = 0 ] && set -- smpi emulate
fi

smpi() {
  echo "== SMPI: every shipped platform, block and round-robin placement"
  echo "\$ gridcoll discover --check platforms/shipped/*.toml --placement block,round-robin"
  "$gc" discover --check "$here"/platforms/shipped/*.toml --placement block,round-robin
  echo
  echo "== SMPI: the 32-site grid (32 sites x 32 nodes), 128 / 512 / 1024 ranks"
  for n in 128 512 1024; do
    echo "\$ gridcoll discover --check platforms/large/grid-32x32.toml -n $n"
    "$gc" discover --check "$here/platforms/large/grid-32x32.toml" -n "$n" | tail -n +$([ "$n" = 128 ] && echo 1 || echo 2)
  done
}

hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; hogs=(); }
trap stop_hogs EXIT INT TERM

emulate() {
  [ "$(id -u)" = 0 ] || { echo "emulate: needs root (network namespaces); skipped"; return; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  local dir
  dir=$(mktemp -d -p /var/tmp gridcoll-discover-XXXXXX)  # not /tmp: the hosts' writes there stay theirs
  for _ in $(seq "$(nproc)"); do (while :; do :; done) & hogs+=($!); done
  echo "== emulated testbed, $(nproc) busy loop(s) running beside the measurement"
  for p in "$here/platforms/shipped/das-4x2.toml" "$here/tests/emulator/platforms/three-level-2x2x2.toml"; do
    "$gc" platform ranks "$p" -o "$dir/truth"
    echo "\$ gridcoll emulate run $(basename "$p") --realtime -- gridcoll-discover -r 40 --expect <gridcoll platform ranks>"
    "$gc" emulate run "$p" --no-check --realtime -- "$bin/gridcoll-discover" --expect "$dir/truth" -r 40 -o "$dir/found" |
      grep -E '^# (discovered|pairs|level|ambiguous|against|summary)|^# +[0-9]'
  done
  stop_hogs
  rm -rf "$dir"
}

for part in "$@"; do
  case $part in
    smpi) smpi ;;
    emulate) emulate ;;
    *) echo "unknown part '$part' (smpi or emulate)" >&2; exit 2 ;;
  esac
  echo
done
