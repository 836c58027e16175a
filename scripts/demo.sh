#!/usr/bin/env bash
# The main job: installs what is missing, builds, and simulates every broadcast algorithm of
# paper 002 (plus SimGrid's own) on the default two-cluster platform: 64 ranks, ranks 0-31 in
# one cluster and 32-63 in the other, 1 Gb/s LAN, 100 Mb/s 5 ms WAN. Prints a comparison table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo
echo "Simulating broadcasts on platforms/xml/two-clusters.xml (64 ranks, every rank in turn as root, 64 KiB segments)..."
build/bin/gridcoll simulate \
  --platform platforms/xml/two-clusters.xml --hostfile platforms/xml/two-clusters.hosts --ranks 64 \
  --collective bcast --algorithm all --bytes 8,64K,1M,4M --segment 64K --fanout 4 --reps 2 --format table "$@"
