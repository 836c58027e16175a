#!/usr/bin/env bash
# discover_cache.sh MPIRUN DISCOVER: the discovery cache on Open MPI (loopback). A first run
# measures and writes the cache; a second run of the same job reuses it without timing a pair;
# a job of another size is refused with the reason, and the cache is left as it was.
set -u
mpirun=$1 discover=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cache=$dir/ranks
fail() { echo "discover_cache.sh: $*"; exit 1; }

out=$("$mpirun" --oversubscribe -np 4 "$discover" --allow-flat --cache "$cache" 2>&1) || fail "first run failed: $out"
echo "$out" | grep -q "pairs timed: [1-9]" || fail "first run timed no pairs: $out"
grep -q "^# discovered for 4 ranks on hosts " "$cache" || fail "cache has no header: $(cat "$cache")"
before=$(cat "$cache")

out=$("$mpirun" --oversubscribe -np 4 "$discover" --allow-flat --cache "$cache" 2>&1) || fail "second run failed: $out"
echo "$out" | grep -q "reused $cache" || fail "second run did not reuse the cache: $out"
echo "$out" | grep -q "cached=yes" || fail "second run's summary does not say cached: $out"

out=$("$mpirun" --oversubscribe -np 3 "$discover" --allow-flat --cache "$cache" 2>&1) && fail "a 3-rank job accepted a 4-rank cache: $out"
echo "$out" | grep -q "has 4 ranks, this job 3" || fail "no clear reason for refusing the cache: $out"
[ "$(cat "$cache")" = "$before" ] || fail "the refused cache was changed"

out=$("$mpirun" -np 1 "$discover" 2>&1) && fail "one rank was accepted: $out"
echo "$out" | grep -q "one rank" || fail "no clear error for one rank: $out"
echo "discover_cache.sh: ok"
