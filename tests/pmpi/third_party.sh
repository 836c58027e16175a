# third_party.sh, sourced by the checks of third-party programs on the PMPI library
# (lammps_check.sh, dft_check.sh): what they share. The sourcing script sets `dir` (its scratch
# directory, whose `out` and `err` hold the last run's output) and `what` (the run, for messages).
#
# fail MESSAGE: prints it under the script's name with the last run's output, exit status 1
fail() {
  echo "$(basename "$0"): $*"
  for f in "$dir/out" "$dir/err"; do [ -f "$f" ] && tail -20 "$f"; done
  exit 1
}
# ran COLL METHOD-REGEX: the last run's verbose log says some communicator's COLL ran with a
# matching method
ran() { grep -Eq "gridcoll-pmpi\[[0-9]+\]: [^ ]+ MPI_$1 [^:]*: $2" "$dir/err" || fail "no 'MPI_$1 ...: $2' in the log ($what)"; }
# rows_agree A B UNITS: A and B hold the same number of rows, each of the same number of fields,
# and every field of both is a finite number (no nan or inf), A's within 1e-9 relative of B's plus
# UNITS units of its last printed decimal place (0: relative only; 1: a last digit may differ by
# one more, where a program rounds a sum whose last bits depend on the order it was taken in).
# A field printed without a decimal point (a count) must be equal. A mismatch prints the row.
rows_agree() {
  paste -d '|' "$1" "$2" | awk -F'|' -v units="${3:-0}" '
    function abs(x) { return x < 0 ? -x : x }
    # one unit of the last decimal place of a printed number (0 for an integer: no slack)
    function last_place(s,    m, d) {
      m = s; sub(/[eE].*/, "", m); d = index(m, ".")
      return d ? 10 ^ -(length(m) - d) * (s ~ /[eE]/ ? 10 ^ substr(s, match(s, /[eE]/) + 1) : 1) : 0
    }
    function number(s) { return s ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
    { na = split($1, a, " "); nb = split($2, b, " ")
      if (na != nb || na == 0) { print "row " NR ": " $1 " | " $2; exit 1 }
      for (i = 1; i <= na; i++) {
        if (!number(a[i]) || !number(b[i])) { print "row " NR ": " $1 " | " $2; exit 1 }
        if (a[i] == b[i]) continue
        m = abs(a[i]) > abs(b[i]) ? abs(a[i]) : abs(b[i])
        if (abs(a[i] - b[i]) > 1e-9 * m + units * last_place(a[i]) * 1.000001 + 1e-300) { print "row " NR ": " $1 " | " $2; exit 1 }
      } }
    END { if (NR == 0) { print "no rows"; exit 1 } }' &&
  [ "$(wc -l < "$1")" = "$(wc -l < "$2")" ]
}
