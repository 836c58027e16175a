#!/usr/bin/env bash
# pmpi_tests_mpich.sh BUILD_DIR SOURCE_DIR: the PMPI library's MPICH build on unmodified programs
# (the checks of pmpi_tests.sh, whose helpers it shares: pmpi_common.sh):
#   MPICH programs (pmpi_check, pmpi_more built against MPICH) with the MPICH
#   build of the library, 1 to 9 ranks, any rank-to-site map; the two Fortran
#   programs (MPICH's mpi_f08 calls PMPI_Init itself); pmpi_many_comms
#   (MPICH's context ids run out with and without early duplicates);
#   pmpi_mpi4 (a session's communicator, persistent collectives) with and
#   without MPI_Init; pmpi_persistent and pmpi_persistent_f08 (MPICH's own
#   persistent gather and scatter give wrong results, so only with the library);
#   pmpi_large_count (MPI 4's _c collectives, blocking, non-blocking, persistent)
set -u
case_=mpich build=$1 src=$2
. "$(dirname "$0")/pmpi_common.sh"

# MPICH programs with the MPICH build of the library: all sixteen collectives (and their
# non-blocking forms) on 1 to 9 ranks, sites drawn from the rank number
[ -x "$bin/pmpi_more_mpich" ] && [ -f "$build/lib/libgridcoll_pmpi_mpich.so" ] || fail "no MPICH build (libmpich-dev)"
mlib=$build/lib/libgridcoll_pmpi_mpich.so
captured mpirun.mpich -np 8 -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "$mixed" -genv GRIDCOLL_VERBOSE 1 \
  "$bin/pmpi_check_mpich" 1 1000 || fail "pmpi_check: exit status $?"
passed 8
ran MPI_COMM_WORLD Bcast "leaders \(builtin"
for n in $(seq 1 9); do
  map="map:levels wan site;$(for r in $(seq 0 $((n - 1))); do printf 'rank %d 0 %d;' $r $(((r * 7 + n) % 3)); done)"
  captured mpirun.mpich -np $n -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "$map" -genv GRIDCOLL_VERBOSE 1 -genv PMPI_MORE_WITH_LIBRARY 1 \
    "$bin/pmpi_more_mpich" 2 300 || fail "$n ranks: exit status $?"
  grep -q "^pmpi_more: [0-9]* checks passed on $n ranks" "$dir/out" || fail "pmpi_more did not pass on $n ranks"
  if [ $n -ge 3 ]; then ran MPI_COMM_WORLD Iallreduce "leaders \(builtin"; fi
done
# MPI_Alltoallw, its non-blocking and persistent forms (pmpi_alltoallw), alltoallv's method forced,
# empty blocks of MPI_DATATYPE_NULL (MPICH takes them)
captured mpirun.mpich -np 5 -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_VERBOSE 1 -genv GRIDCOLL_ALLTOALLV_ALGORITHM pairwise \
  -genv GRIDCOLL_TOPOLOGY "map:levels wan site;rank 0 0 0;rank 1 0 1;rank 2 0 2;rank 3 0 0;rank 4 0 1" "$bin/pmpi_alltoallw_mpich" 2 null-empty || fail "pmpi_alltoallw: exit status $?"
grep -q "^pmpi_alltoallw: 84 checks passed on 5 ranks" "$dir/out" || fail "pmpi_alltoallw did not pass"
for c in Alltoallw Ialltoallw; do ran reversed $c "pairwise \(forced"; done
grep -Eq "gridcoll-pmpi\[0\]:   MPI_Ialltoallw any-size pairwise x24 " "$dir/out" || fail "pmpi_alltoallw: not 24 MPI_Ialltoallw (the starts)"
# Fortran on MPICH: `use mpi` calls MPI_*; mpi_f08 calls PMPI_Init, PMPI_Wait... itself; the
# scatter gridcoll's (pmpi_fortran_f08 scatters into an array section)
for prog in pmpi_fortran pmpi_fortran_f08; do
  [ -x "$bin/${prog}_mpich" ] || fail "no $bin/${prog}_mpich (MPICH's mpifort)"
  captured mpirun.mpich -np 8 -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "$mixed" -genv GRIDCOLL_VERBOSE 1 \
    -genv GRIDCOLL_PROGRESS calls -genv GRIDCOLL_SCATTER_ALGORITHM binomial -genv GRIDCOLL_ALLTOALLV_ALGORITHM pairwise \
    "$bin/${prog}_mpich" || fail "${prog}_mpich: exit status $?"
  grep -q "^$prog: [0-9]* checks passed on 8 ranks" "$dir/out" || fail "${prog}_mpich did not pass"
  for c in Bcast Allreduce Iallreduce Ibcast; do ran MPI_COMM_WORLD $c "leaders \(builtin"; done
  ran MPI_COMM_WORLD Alltoallw "pairwise \(forced"
done
ran f08-split Iallreduce "leaders \(builtin"
ran MPI_COMM_WORLD Iscatter "binomial \(forced"  # into an array section (pmpi_fortran_f08)
# MPI-4 (pmpi_mpi4): a session's communicator and persistent collectives, with MPI_Init (the
# library takes the session's communicator) and without it (the library is never set up)
map5="map:levels wan site;rank 0 0 0;rank 1 0 1;rank 2 0 2;rank 3 0 0;rank 4 0 1"
if [ -x "$bin/pmpi_mpi4_mpich" ]; then  # built where MPICH has MPI 4
  for mode in sessions:15 mixed:16; do
    captured mpirun.mpich -np 5 -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "$map5" -genv GRIDCOLL_VERBOSE 1 \
      "$bin/pmpi_mpi4_mpich" ${mode%:*} || fail "pmpi_mpi4 ${mode%:*}: exit status $?"
    grep -q "^pmpi_mpi4: ${mode#*:} checks passed on 5 ranks (${mode%:*})" "$dir/out" ||
      fail "pmpi_mpi4 ${mode%:*} did not pass its ${mode#*:} checks"
    if [ ${mode%:*} = sessions ]; then
      ! grep -q "gridcoll-pmpi\[" "$dir/out" || fail "pmpi_mpi4 sessions: the library took part without MPI_Init"
    else
      ran "comm#[0-9]+" Allreduce "multitree:seg=64K \(builtin"; ran "comm#[0-9]+" Bcast "wanstream \(builtin"
    fi
  done
fi
# persistent collectives, gridcoll's methods forced where the builtin decision gives MPI's own:
# MPICH 4.0.2's own persistent gather, scatter and their kin give wrong answers
gridcolls=(-genv GRIDCOLL_SCATTER_ALGORITHM binomial -genv GRIDCOLL_GATHER_ALGORITHM binomial
  -genv GRIDCOLL_ALLTOALL_ALGORITHM bruck -genv GRIDCOLL_GATHERV_ALGORITHM linear
  -genv GRIDCOLL_SCATTERV_ALGORITHM linear -genv GRIDCOLL_ALLTOALLV_ALGORITHM pairwise)
if [ -x "$bin/pmpi_persistent_mpich" ]; then
  for n in 2 3 5; do  # (one rank: MPI's own, as every one-rank communicator's)
    map="map:levels wan site;$(for r in $(seq 0 $((n - 1))); do printf 'rank %d 0 %d;' $r $(((r * 7 + n) % 3)); done)"
    captured mpirun.mpich -np $n -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "$map" -genv GRIDCOLL_VERBOSE 1 \
      "${gridcolls[@]}" "$bin/pmpi_persistent_mpich" 5 || fail "pmpi_persistent on $n ranks: exit status $?"
    grep -q "^pmpi_persistent: 291 checks passed on $n ranks" "$dir/out" || fail "pmpi_persistent did not pass on $n ranks"
  done
  for c in Ibcast Iallgatherv Iallreduce; do ran reversed $c "[a-z:=0-9-]+ \\(builtin"; done
  ran reversed Ialltoallv "pairwise \\(forced"
  [ -x "$bin/pmpi_persistent_f08_mpich" ] || fail "no $bin/pmpi_persistent_f08_mpich (MPICH's mpifort)"
  for progress in auto calls; do  # mpi_f08's MPI_Start and waits call PMPI_* themselves
    captured mpirun.mpich -np 5 -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "$map5" -genv GRIDCOLL_VERBOSE 1 \
      -genv GRIDCOLL_PROGRESS $progress "$bin/pmpi_persistent_f08_mpich" || fail "pmpi_persistent_f08: exit status $?"
    grep -q "^pmpi_persistent_f08: 13 checks passed on 5 ranks" "$dir/out" || fail "pmpi_persistent_f08 did not pass"
    grep -Eq "gridcoll-pmpi\[0\]:   MPI_Iallreduce [^ ]+ [^ ]+ x3 " "$dir/out" || fail "pmpi_persistent_f08: not three allreduces by the library"
  done
fi
# MPI 4's large-count collectives: their int forms run by the library, gridcoll's methods
# forced where the builtin decision gives MPI's own (whose persistent forms are wrong, above)
if [ -x "$bin/pmpi_large_count_mpich" ]; then
  for n in 2 3 5; do
    map="map:levels wan site;$(for r in $(seq 0 $((n - 1))); do printf 'rank %d 0 %d;' $r $(((r * 5 + n) % 3)); done)"
    captured mpirun.mpich -np $n -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "$map" -genv GRIDCOLL_VERBOSE 1 \
      "${gridcolls[@]}" "$bin/pmpi_large_count_mpich" || fail "pmpi_large_count on $n ranks: exit status $?"
    grep -q "^pmpi_large_count: 169 checks passed on $n ranks" "$dir/out" || fail "pmpi_large_count did not pass on $n ranks"
  done
  # (the log names the _c forms)
  for c in Bcast Reduce Allreduce Scan Exscan Scatter Gather Allgather Alltoall Reduce_scatter_block Reduce_scatter; do
    ran reversed "${c}_c" "[a-mo-z][^ ]* \\((builtin|forced)"; ran reversed "I${c,}_c" "[a-mo-z][^ ]* \\((builtin|forced)"
  done
  for c in Allgatherv Gatherv Scatterv Alltoallv Alltoallw; do  # never narrowed: run on their MPI_Count arrays
    ran reversed "${c}_c" "[a-mo-z][^ ]* \\((builtin|forced)"; ran reversed "I${c,}_c" "[a-mo-z][^ ]* \\((builtin|forced)"
  done
  # their persistent starts too: two rounds of one non-blocking call and two starts
  for c in Igatherv:linear Iscatterv:linear Ialltoallv:pairwise Ialltoallw:pairwise; do
    grep -Eq "gridcoll-pmpi\[[0-9]+\]:   MPI_${c%%:*}_c any-size ${c#*:} x6 " "$dir/out" || fail "pmpi_large_count: not 6 MPI_${c%%:*}_c by the library"
  done
  ran reversed Bcast_c "native \\(empty message"  # the count past INT_MAX of no bytes
  # MPI's own method: the non-blocking call is MPICH's own _c one, with the program's array
  # (the reduce-scatter's int form hands it over; the allgatherv's _c form calls it)
  captured mpirun.mpich -np 3 -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "map:levels wan site;rank 0 0 0;rank 1 0 1;rank 2 0 0" \
    -genv GRIDCOLL_VERBOSE 1 "${gridcolls[@]}" -genv GRIDCOLL_REDUCE_SCATTER_ALGORITHM native \
    -genv GRIDCOLL_ALLGATHERV_ALGORITHM native "$bin/pmpi_large_count_mpich" ||
    fail "pmpi_large_count, reduce_scatter and allgatherv native: exit status $?"
  grep -q "^pmpi_large_count: 169 checks passed on 3 ranks" "$dir/out" || fail "pmpi_large_count, reduce_scatter native, did not pass"
  ran reversed Ireduce_scatter_c "native \\(forced"
  ran reversed Iallgatherv_c "native \\(forced"
  grep -q "a large-count non-blocking call whose method is MPI's own runs as MPI's _c call" "$dir/out" ||
    fail "pmpi_large_count, reduce_scatter native: the int form went to MPI"
fi
# MPICH's context ids run out near 2048 communicators: the library's early duplicates take
# half, their failure is not the program's, and early_duplicate=0 gives them all back
held() {  # MIN-COUNT ENV...: the count in $got
  local least=$1; shift
  captured mpirun.mpich -np 2 -genv LD_PRELOAD "$mlib" -genv GRIDCOLL_TOPOLOGY "map:levels wan site;rank 0 0 0;rank 1 0 1" \
    "$@" "$bin/pmpi_many_comms_mpich" || fail "pmpi_many_comms $*: exit status $?"
  got=$(sed -n 's/^pmpi_many_comms: \([0-9]*\) communicators held, passed on 2 ranks$/\1/p' "$dir/out")
  [ -n "$got" ] && [ "$got" -ge "$least" ] || fail "pmpi_many_comms $*: '$got' communicators held, expected at least $least"
}
held 1000
early=$got
held 2000 -genv GRIDCOLL_EARLY_DUPLICATE 0
late=$got
[ "$early" -lt 4096 ] && [ "$late" -gt "$early" ] || fail "communicators held: $early with early duplicates, $late without"
echo "${0##*/} $case_: ok"
