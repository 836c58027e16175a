#!/usr/bin/env bash
# Links that differ, read back from SimGrid XML: mixed-wan-5x16's generated XML gives the imported
# Topology the description's pair links (the same ten site pairs, each at 1 or 2 MB/s);
# karonis-grid's gives its machines' cluster links (100, 100 and 150 MB/s); das-4x32's, whose
# links all agree, gives neither. Usage: import_links.sh <gridcoll binary> <source dir>
set -euo pipefail
gc=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

import() {  # platform name -> $dir/<name>.{toml.map,xml.map}
  local p=$src/platforms/shipped/$1.toml
  "$gc" platform xml "$p" -o "$dir/$1.xml"
  "$gc" platform hosts "$p" -o "$dir/$1.hosts"
  "$gc" platform ranks "$p" -o "$dir/$1.toml.map"
  "$gc" platform ranks "$dir/$1.xml" --hostfile "$dir/$1.hosts" -o "$dir/$1.xml.map"
}
# "level a b bandwidth" per pair link
pairs() { awk '$1 == "pairlink" { print $2, $3, $4, $6 + 0 }' "$1" | sort; }

import mixed-wan-5x16
want=$(pairs "$dir/mixed-wan-5x16.toml.map")
got=$(pairs "$dir/mixed-wan-5x16.xml.map")
echo "description's pair links:"; echo "$want"
echo "imported pair links:"; echo "$got"
[ "$(wc -l <<< "$want")" -eq 10 ] || fail "the description should have 10 pair links"
[ "$want" = "$got" ] || fail "imported pair links differ from the description's"
grep -q "pairlink 0 0 1 0.01002 " "$dir/mixed-wan-5x16.xml.map" ||
  fail "a pair link's latency should be the route's: 10 ms WAN plus two 10 us LAN hops"

# "level id bandwidth" per cluster link of the machine level (2)
machines() { awk '$1 == "clusterlink" && $2 == 2 { print $2, $3, $5 + 0 }' "$1" | sort; }
import karonis-grid
want=$(machines "$dir/karonis-grid.toml.map")
got=$(machines "$dir/karonis-grid.xml.map")
echo "description's machine links:"; echo "$want"
echo "imported machine links:"; echo "$got"
[ "$(wc -l <<< "$want")" -eq 3 ] || fail "the description should have 3 machine links"
[ "$want" = "$got" ] || fail "imported machine links differ from the description's"

"$gc" platform xml "$src/platforms/shipped/das-4x32.toml" -o "$dir/das.xml"
"$gc" platform hosts "$src/platforms/shipped/das-4x32.toml" -o "$dir/das.hosts"
"$gc" platform ranks "$dir/das.xml" --hostfile "$dir/das.hosts" -o "$dir/das.map"
! grep -Eq "pairlink|clusterlink" "$dir/das.map" || fail "das-4x32's links all agree: no pair or cluster links expected"
echo "import_links: ok"
