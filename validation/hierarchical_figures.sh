#!/usr/bin/env bash
# The topology-aware algorithms' figures (issue 10), each table side by side in one SMPI run:
#   1. das-4x32 / das-8x16, 4 MiB broadcast, root 0: MagPIe's original vs the P-LogP pipelined
#      two-layer broadcast (`twolayer`: the optimiser's parameters; and a fixed 64 KiB chain)
#      vs the multi-tree broadcast (paper 000 Figure 4's comparison);
#   2. karonis-grid: multilevel vs MagPIe with cluster = site / = machine vs flat binomial,
#      every rank as root in turn (paper 001 Figure 9's timing method);
#   3. eco-cmu: the 16000-byte broadcast of paper 003 Table 3 (ECO, k = 2 and k = 3 trees, star);
#   4. grid-32x32 (1024 ranks), 4 MiB, root 0: the multi-tree broadcasts (wanstream, multitree)
#      and allreduce vs SimGrid's built-ins (--full: every built-in broadcast; default: the best
#      ones measured before);
#   5. evsim: the event simulator against SMPI for the hierarchical broadcasts on das-4x32 and
#      das-8x16, 64 KiB - 16 MiB (event_vs_smpi.py): PLogP as is; with --sync-sends (a send
#      completes when its message has arrived: SimGrid's rendezvous for messages >= 64 KiB, so a
#      chain of 64 KiB segments pays a latency per segment there); and with --shared-links wan;
#      and that with --sync-from 64K (smaller sends are detached in SMPI, as SimGrid's default);
#      and sync-links with --bench-timing (the bench's release and reports around the collective,
#      as SMPI measures it: about 10 ms more on das); and SimGrid's own settings all together:
#      sync-from 64K, shared links, the bench's timing and --rendezvous (a message moves only
#      once its receive is posted, as SimGrid matches every message, detached or not: a remote
#      rank released 10 ms late receives 10 ms late): rdv-timed; and that with --cross-traffic 0.05
#      (a WAN message also loads its link's other direction, SimGrid's network/crosstraffic):
#      simgrid-like.
#   6. mixed: mixed-wan-5x16 (WAN links of 1 and 2 MB/s), the multi-tree broadcasts and allreduce
#      with shares in proportion to link bandwidth against equal shares (method key shares=equal),
#      in SMPI, in the event simulator, and in SMPI on the platform brought as SimGrid XML.
#   7. emulate (root; in `all` only when run as root): das-4x2 on the emulated WAN testbed, the
#      multi-tree broadcasts, the pipelined two-layer one and binomial on Open MPI, beside SMPI.
# Usage: validation/hierarchical_figures.sh [--full] [only: das|karonis|eco|grid|evsim|mixed|emulate]
# Needs the build (scripts/build.sh) and SimGrid; prints tables, writes nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gc=${GRIDCOLL:-$here/build/bin/gridcoll}
full=0
[ "${1:-}" = --full ] && { full=1; shift; }
only=${1:-all}
run() {  # GRIDCOLL_TIMEOUT: seconds of wall time before the run is cut off (default: none)
  echo; echo "\$ gridcoll $*"
  local out
  out=$(timeout "${GRIDCOLL_TIMEOUT:-0}" "$gc" "$@" -f table 2>/dev/null) || return 1
  sed -n '/ranks:/,$p' <<< "$out"
}

if [ "$only" = all ] || [ "$only" = das ]; then
  for p in das-4x32 das-8x16; do
    run simulate -p "$here/platforms/shipped/$p.toml" -c bcast -b 4M --root 0 -r 1 --warmup 0 \
      -a magpie,twolayer,'twolayer:seg=64K[kary:k=1|kary:k=1]',multitree:k=1:seg=64K,multitree:k=1:seg=64K:win=1,wanstream,binomial
  done
fi
if [ "$only" = all ] || [ "$only" = karonis ]; then
  run simulate -p "$here/platforms/shipped/karonis-grid.toml" -c bcast -b 1K,64K,1M -r 48 --warmup 0 \
    -a multilevel,magpie:level=1,magpie:level=2,binomial
fi
if [ "$only" = all ] || [ "$only" = eco ]; then
  echo; echo "paper 003 Table 3 (minimum, s): ECO 0.0614, tree(k=2) 0.104, tree(k=3) 0.104, star 0.104"
  run simulate -p "$here/platforms/shipped/eco-cmu.toml" -c bcast -b 16000 --root 0 -r 3 --warmup 1 \
    -a eco,kary:k=2,kary:k=3,linear
fi
if [ "$only" = all ] || [ "$only" = evsim ]; then
  tmp=$(mktemp -d -t gridcoll-evsim-XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  methods='magpie,multilevel:seg=64K,twolayer:seg=64K[kary:k=1|kary:k=1],multitree:k=1:seg=64K,wanstream'
  for p in das-4x32 das-8x16; do
    common=(-p "$here/platforms/shipped/$p.toml" -c bcast -b 64K,256K,1M,4M,16M --root 0 -r 1 --warmup 0 -a "$methods")
    echo; echo "\$ gridcoll simulate ${common[*]} [--backend smpi | event [--sync-sends [--sync-from 64K] [--shared-links wan] [--bench-timing] [--rendezvous] [--cross-traffic 0.05]]]"
    "$gc" simulate "${common[@]}" > "$tmp/smpi.csv"
    "$gc" simulate "${common[@]}" --backend event > "$tmp/event.csv"
    "$gc" simulate "${common[@]}" --backend event --sync-sends > "$tmp/sync.csv"
    "$gc" simulate "${common[@]}" --backend event --sync-sends --shared-links wan > "$tmp/sync-links.csv"
    "$gc" simulate "${common[@]}" --backend event --sync-sends --sync-from 64K --shared-links wan > "$tmp/sync64K-links.csv"
    "$gc" simulate "${common[@]}" --backend event --sync-sends --shared-links wan --bench-timing > "$tmp/sync-links-timed.csv"
    "$gc" simulate "${common[@]}" --backend event --sync-sends --sync-from 64K --shared-links wan --bench-timing \
      --rendezvous > "$tmp/rdv-timed.csv"
    "$gc" simulate "${common[@]}" --backend event --sync-sends --sync-from 64K --shared-links wan --bench-timing \
      --rendezvous --cross-traffic 0.05 > "$tmp/simgrid-like.csv"
    /usr/bin/python3 "$here/validation/event_vs_smpi.py" "$tmp/smpi.csv" "$tmp/event.csv" "$tmp/sync.csv" \
      "$tmp/sync-links.csv" "$tmp/sync64K-links.csv" "$tmp/sync-links-timed.csv" "$tmp/rdv-timed.csv" \
      "$tmp/simgrid-like.csv"
  done
fi
if [ "$only" = all ] || [ "$only" = grid ]; then
  grid="$here/platforms/large/grid-32x32.toml"
  big=(--root 0 -r 1 --warmup 0 --shared-malloc --no-privatize --no-verify)
  if [ $full = 1 ]; then
    # SimGrid lists its broadcasts when asked for one it does not have.
    list=$(mktemp -d -t gridcoll-colls-XXXXXX)
    "$gc" platform xml "$here/platforms/shipped/das-4x2.toml" -o "$list/p.xml"
    "$gc" platform hosts "$here/platforms/shipped/das-4x2.toml" -o "$list/h"
    builtins=$(smpirun -platform "$list/p.xml" -hostfile "$list/h" -np 2 "$(dirname "$gc")/gridcoll-bench-smpi" \
                 --cfg=smpi/bcast:list 2>&1 | sed -n 's/.*Valid algorithms: //p' | tr -d ',.' |
               tr ' ' '\n' | grep -v -x -e default -e automatic -e '' || true)
    rm -rf "$list"
    [ -n "$builtins" ] || { echo "hierarchical_figures.sh: could not list SimGrid's broadcasts" >&2; exit 1; }
  else
    builtins="ompi_pipeline binomial_tree"
  fi
  run simulate -p "$grid" -c bcast -b 4M "${big[@]}" -a wanstream,multitree:k=1:seg=64K:win=1,multitree:k=1:seg=64K,multitree:k=2:seg=64K:win=1,pipeline:seg=64K
  for b in $builtins; do  # (a built-in that needs more than 10 minutes of wall time is cut off)
    GRIDCOLL_TIMEOUT=600 run simulate -p "$grid" -c bcast -b 4M "${big[@]}" -a native --smpi-algorithm "$b" ||
      echo "  $b: no time (failed or cut off after 600 s of wall time)"
  done
  run simulate -p "$grid" -c allreduce -b 4M "${big[@]}" -a multitree:seg=64K,multitree:seg=64K:win=1
  run simulate -p "$grid" -c allreduce -b 4M "${big[@]}" -a native --smpi-algorithm rab_rdb
  echo
  echo "bounds (DESIGN.md), the in-site terms fully overlapped: bcast L + M/((C-1)B) = 0.01 + 4194304/31e6" \
       "= 0.145 s; allreduce L + 2M/(CB) = 0.01 + 8388608/32e6 = 0.272 s"
  echo "with the in-site terms after the WAN (n = 32 nodes of B_l = 50 MB/s): bcast + M/B_l = 0.229 s;" \
       "allreduce + 2(n-1)/n M/B_l = 0.435 s. wanstream hides all of the broadcast's behind the WAN but the last" \
       "pieces' chain (a sink per site receives the WAN, a forwarder sends it, the chain runs beside them);" \
       "multitree hides about half (a site's two groups): SimGrid's CM02 starves a WAN flow beside a LAN one" \
       "that fills the node's link, which keeps the rest apart. The times above include the bench's timing method" \
       "(paper 001: the release and the reports, one WAN latency each, about 21 ms); the bounds do not."
fi
if [ "$only" = all ] || [ "$only" = mixed ]; then
  # WAN links that differ: the multi-tree broadcast's shares by link bandwidth (the default) and equal.
  run simulate -p "$here/platforms/shipped/mixed-wan-5x16.toml" -c bcast -b 1M,4M,16M --root 0 -r 1 --warmup 0 \
    -a multitree:k=1:seg=64K:win=1,multitree:k=1:seg=64K:win=1:shares=equal,multitree:seg=64K,multitree:seg=64K:shares=equal,wanstream,wanstream:shares=equal,twolayer,magpie
  run simulate -p "$here/platforms/shipped/mixed-wan-5x16.toml" -c allreduce -b 4M --root 0 -r 1 --warmup 0 \
    -a multitree:seg=64K,multitree:seg=64K:shares=equal
  # The same in the event simulator (each site pair priced by its own link; the simgrid-like
  # settings of the evsim figures), and in SMPI on the platform brought as SimGrid XML (its
  # Topology imported: pair links from the XML's routes).
  ev=(--backend event --shared-links wan --sync-sends --sync-from 64K --bench-timing --rendezvous --cross-traffic 0.05)
  run simulate -p "$here/platforms/shipped/mixed-wan-5x16.toml" "${ev[@]}" -c bcast -b 1M,4M,16M --root 0 -r 1 \
    -a multitree:k=1:seg=64K:win=1,multitree:k=1:seg=64K:win=1:shares=equal,multitree:seg=64K,multitree:seg=64K:shares=equal,wanstream,wanstream:shares=equal
  run simulate -p "$here/platforms/shipped/mixed-wan-5x16.toml" "${ev[@]}" -c allreduce -b 4M --root 0 -r 1 \
    -a multitree:seg=64K,multitree:seg=64K:shares=equal
  xml=$(mktemp -d)
  "$gc" platform xml "$here/platforms/shipped/mixed-wan-5x16.toml" -o "$xml/mixed.xml"
  "$gc" platform hosts "$here/platforms/shipped/mixed-wan-5x16.toml" -o "$xml/mixed.hosts"
  run simulate -p "$xml/mixed.xml" --hostfile "$xml/mixed.hosts" -c bcast -b 4M --root 0 -r 1 --warmup 0 \
    -a multitree:k=1:seg=64K:win=1,multitree:k=1:seg=64K:win=1:shares=equal,wanstream,wanstream:shares=equal
  rm -rf "$xml"
  echo
  echo "bound: site c3 takes M over links of 1 + 2 + 2 + 1 MB/s: L + M/(6 MB/s) = 0.709 s at 4 MiB; with equal" \
       "shares a 1 MB/s link carries M/4: L + M/(4 MB/s) = 1.059 s"
fi
if [ "$only" = emulate ] || { [ "$only" = all ] && [ "$(id -u)" = 0 ]; }; then
  # The multi-tree broadcasts on real Open MPI across the emulated WAN (das-4x2 as network
  # namespaces, root), beside SMPI calibrated to Open MPI over TCP (the main job's smpi-tcp
  # settings: a message of 64 KiB or more pays one more round trip; 95.6 % of a link's rate is data).
  [ "$(id -u)" = 0 ] || { echo "hierarchical_figures.sh emulate: needs root (network namespaces)" >&2; exit 1; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  das2="$here/platforms/shipped/das-4x2.toml"
  hier=(-c bcast -b 64K,1M,4M --root 0 -a 'wanstream,multitree:k=1:seg=64K:win=1,twolayer:seg=64K[kary:k=1|kary:k=1],binomial')
  run emulate bench "$das2" "${hier[@]}" -r 3 --warmup 1
  run simulate -p "$das2" "${hier[@]}" -r 1 --warmup 0 --network-model smpi --cfg 'smpi/lat-factor:65536:3;0:1' \
    --cfg 'smpi/bw-factor:0:0.956'
  echo
  echo "bound: L + M/((C-1)B) = 0.01 + 4194304/3e6 = 1.408 s at 4 MiB (3 WAN links out of each site at 1 MB/s)"
fi
