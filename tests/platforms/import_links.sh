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
# The links an awk filter picks from a rank map, sorted.
links() { awk "$1" "$2" | sort; }
# expect_same PLATFORM FILTER COUNT WHAT: the imported map has the description's COUNT links.
expect_same() {
  local want got
  want=$(links "$2" "$dir/$1.toml.map")
  got=$(links "$2" "$dir/$1.xml.map")
  echo "description's $4:"; echo "$want"
  echo "imported $4:"; echo "$got"
  [ "$(wc -l <<< "$want")" -eq "$3" ] || fail "the description should have $3 $4"
  [ "$want" = "$got" ] || fail "imported $4 differ from the description's"
}

import mixed-wan-5x16  # "level a b bandwidth" per pair link
expect_same mixed-wan-5x16 '$1 == "pairlink" { print $2, $3, $4, $6 + 0 }' 10 "pair links"
grep -q "pairlink 0 0 1 0.01002 " "$dir/mixed-wan-5x16.xml.map" ||
  fail "a pair link's latency should be the route's: 10 ms WAN plus two 10 us LAN hops"

import karonis-grid  # "level id bandwidth" per cluster link of the machine level (2)
expect_same karonis-grid '$1 == "clusterlink" && $2 == 2 { print $2, $3, $5 + 0 }' 3 "machine links"

import das-4x32
! grep -Eq "pairlink|clusterlink" "$dir/das-4x32.xml.map" ||
  fail "das-4x32's links all agree: no pair or cluster links expected"
echo "import_links: ok"
