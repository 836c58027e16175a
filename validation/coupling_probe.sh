#!/usr/bin/env bash
# coupling_probe.sh [--check] [PLATFORM.toml]: under SMPI (gridcoll's default network model,
# CM02, with SimGrid's cross-traffic), does LAN traffic at a node stall its WAN messages? Builds
# validation/coupling_probe.c with smpicc, places ranks 0-3 on a site's first four hosts and
# rank 4 on another site, and prints the six cases (a sink or a forwarder; no LAN traffic, LAN
# traffic with the node alone, LAN traffic whose bottleneck is a third node's link shared with
# another flow) as a Markdown table. Default platform: platforms/shipped/das-4x32.toml.
# --check: exits 1 unless the WAN stream is stalled by at least half the LAN traffic's time when
# alone, and by under 1 % when the bottleneck is shared (docs/design/tree-packing-misses.md,
# "The coupling probed").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
platform=${1:-$here/../platforms/shipped/das-4x32.toml}
gridcoll=${GRIDCOLL:-$here/../build/bin/gridcoll}
[ -f "$platform" ] || { echo "coupling_probe.sh: no platform description '$platform'" >&2; exit 2; }
[ -x "$gridcoll" ] || { echo "coupling_probe.sh: no $gridcoll (build first, or set GRIDCOLL)" >&2; exit 2; }
command -v smpicc >/dev/null || { echo "coupling_probe.sh: no smpicc (SimGrid: scripts/install-deps.sh)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$gridcoll" platform xml "$platform" -o "$dir/p.xml"
"$gridcoll" platform hosts "$platform" -o "$dir/all"
# four hosts of the first site (hosts are listed site by site: the prefix before the last '-'),
# then the first host of another
first=$(head -1 "$dir/all")
{ head -4 "$dir/all"; grep -v "^${first%-*}-" "$dir/all" | head -1; } > "$dir/hosts"
[ "$(sort -u "$dir/hosts" | wc -l)" -eq 5 ] && [ "$(grep -c "^${first%-*}-" "$dir/hosts")" -eq 4 ] ||
  { echo "coupling_probe.sh: $platform needs a site of four hosts and a second site" >&2; exit 2; }
smpicc -O1 -o "$dir/probe" "$here/coupling_probe.c" 2> "$dir/cc.err" || { cat "$dir/cc.err" >&2; exit 1; }
declare -A wan lan
echo "| node | LAN traffic | WAN stream ends | LAN traffic ends |"
echo "|---|---|---|---|"
for side in sink forwarder; do
  for c in none alone shared; do
    line=$(cd "$dir" && smpirun -np 5 -platform p.xml -hostfile hosts --cfg=network/model:CM02 \
             --cfg=smpi/simulate-computation:no --log=root.thres:critical ./probe $side $c 2>&1 | grep "^coupling_probe $side $c:") ||
      { echo "coupling_probe.sh: the $side $c run printed no result" >&2; exit 1; }
    read -r _ _ _ _ w _ l <<< "$line"
    wan[$side.$c]=$w lan[$side.$c]=$l
    echo "| $side | $c | $w s | $l s |"
  done
done
[ $check = 1 ] || exit 0
for side in sink forwarder; do
  awk -v none="${wan[$side.none]}" -v alone="${wan[$side.alone]}" -v shared="${wan[$side.shared]}" \
      -v lan="${lan[$side.alone]}" -v side=$side 'BEGIN {
    stall = alone - none; spare = shared - none
    printf "%s: stalled %.4f s by LAN traffic of %.4f s alone, %.4f s when its bottleneck is shared\n", side, stall, lan, spare
    exit !(stall >= lan / 2 && spare < none / 100)
  }' || { echo "coupling_probe.sh: FAIL: the $side's WAN stream does not behave as docs/design/tree-packing-misses.md says" >&2; exit 1; }
done
