# pmpi_common.sh: sourced by pmpi_tests.sh and pmpi_tests_mpich.sh once they set case_, build and
# src: the programs' and the library's paths, a scratch directory, and the checks of a run's output.
bin=$build/bin lib=$build/lib/libgridcoll_pmpi.so
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI 4.1's mpirun aggregates the ranks' help messages; a job ended by MPI_Abort (the
# library stopping it for an error) sends one as it dies, and mpirun, unpacking it, reports
# "Data unpack would read past end of buffer in show_help.c" (github.com/open-mpi/ompi issue
# 8356) and about one run in 40 then hangs in its own finalize, the ranks gone. Unaggregated,
# 80 runs of 80 ended.
export OMPI_MCA_orte_base_help_aggregate=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "${0##*/} $case_: $*"; [ -f "$dir/out" ] && tail -40 "$dir/out"; exit 1; }
mixed=$src/tests/mpi/rank-maps/mixed-8.ranks
# Runs a command with its output in $dir/out, standard output first, then standard error. They
# are kept apart while it runs: mpirun forwards a rank's two streams separately, and written to
# one file a piece of one could land inside a line of the other (a CI run once lost the
# "pmpi_check: ... checks passed" line's start that way).
captured() { "$@" >"$dir/stdout" 2>"$dir/stderr"; local rc=$?; cat "$dir/stdout" "$dir/stderr" >"$dir/out"; return $rc; }
mpi8() { captured mpirun -np 8 --oversubscribe --mca btl self,vader,tcp --mca btl_tcp_if_include lo "$@"; }
passed() { grep -q "^pmpi_check: [0-9]* checks passed on $1 ranks" "$dir/out" || fail "the program did not pass"; }
# ran COMM COLL METHOD-REGEX: the log says COMM's COLL ran with a matching method
ran() { grep -Eq "gridcoll-pmpi\[[0-9]+\]: $1 MPI_$2 [^:]*: $3" "$dir/out" || fail "no '$1 MPI_$2 ...: $3' in the log"; }
