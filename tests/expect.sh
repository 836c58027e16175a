#!/usr/bin/env bash
# expect.sh STATUS REGEX -- COMMAND...
# Runs COMMAND and passes only if it exits with STATUS (or any non-zero status for "nonzero")
# and its combined output matches the extended regular expression REGEX.
set -u
want=$1 regex=$2
shift 2
[ "$1" = "--" ] && shift
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$want" = nonzero ]; then
  [ "$status" -ne 0 ] || { echo "expect.sh: expected a non-zero exit status, got 0"; exit 1; }
elif [ "$status" -ne "$want" ]; then
  echo "expect.sh: expected exit status $want, got $status"; exit 1
fi
printf '%s\n' "$out" | grep -Eq -- "$regex" || { echo "expect.sh: output does not match /$regex/"; exit 1; }
echo "expect.sh: ok (status $status, output matches /$regex/)"
