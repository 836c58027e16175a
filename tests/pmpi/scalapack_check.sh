#!/usr/bin/env bash
# scalapack_check.sh MPI BUILD_DIR: unmodified third-party programs on the PMPI library — Debian's
# ScaLAPACK test programs (package scalapack-mpi-test), built by Debian against each MPI library.
# The BLACS testers (xCbtest, C; xFbtest, Fortran) broadcast and combine (sum, max, min with
# BLACS's own operations, in every precision, over rows, columns and whole grids, on 2 x 2, 1 x 4,
# 4 x 1 and 1 x 3 process grids) and check every result themselves; the LU and QR drivers
# (xdlu, xzqr) factor and solve, checking residuals. Each runs with the library preloaded on a
# rank map of WAN sites, at the default settings and with bandwidth methods forced, and must
# report no failure; the library's verbose log must show its own methods ran.
#   MPI = openmpi: 4 ranks (three sites of 1, 2 and 1 ranks, then two of 2)
#   MPI = mpich:   2 ranks in two sites, the BLACS grids cut to 1 x 2 and 2 x 1 (BLACS polls, and
#                  MPICH's ranks do not yield: 4 ranks on a 2-core machine take minutes)
set -u
mpi=$1 build=$(cd "$2" && pwd) || { echo "scalapack_check.sh: no build directory $2"; exit 1; }
programs=/usr/lib/x86_64-linux-gnu/scalapack/$mpi-tests data=/usr/share/scalapack
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "scalapack_check.sh $mpi: $*"; [ -f "$dir/out" ] && tail -30 "$dir/out" && tail -10 "$dir/err"; exit 1; }
[ -x "$programs/xCbtest" ] && [ -d "$data/BLACS" ] ||
  fail "no $programs/xCbtest: the Debian package scalapack-mpi-test is missing (scripts/install-deps.sh installs it)"
cp "$data"/BLACS/*.dat "$data"/LU.dat "$data"/QR.dat "$dir"/ || fail "cannot copy the input files"
# The auxiliary tests end with BLACS_ABORT (the job killed on purpose): not run.
sed -i "s/^'T'\( *Run AUX?\)/'F'\1/" "$dir/bt.dat"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_orte_base_help_aggregate=0
case $mpi in
openmpi)
  lib=$build/lib/libgridcoll_pmpi.so
  maps=("map:levels wan site;rank 0 0 1;rank 1 0 0;rank 2 0 2;rank 3 0 0"
        "map:levels wan site;rank 0 0 0;rank 1 0 0;rank 2 0 1;rank 3 0 1")
  launch() {  # MAP ENV... -- PROGRAM
    local map=$1; shift
    local env=(-x LD_PRELOAD="$lib" -x GRIDCOLL_TOPOLOGY="$map" -x GRIDCOLL_VERBOSE=1)
    while [ "$1" != -- ]; do env+=(-x "$1"); shift; done
    shift
    timeout -k 10 240 mpirun -np 4 --oversubscribe --mca btl self,vader,tcp --mca btl_tcp_if_include lo "${env[@]}" "$@"
  }
  ;;
mpich)
  lib=$build/lib/libgridcoll_pmpi_mpich.so
  maps=("map:levels wan site;rank 0 0 1;rank 1 0 0")
  for f in bsbr comb sdrv; do  # the grids of two processes
    awk '/Number of grids/ { print "2  Number of grids"; getline; print "1 2  NPROW"; getline; print "2 1  NPCOL"; next }
         { print }' "$dir/$f.dat" > "$dir/$f.new" && mv "$dir/$f.new" "$dir/$f.dat" || fail "cannot rewrite $f.dat"
  done
  launch() {
    local map=$1; shift
    local env=(-genv LD_PRELOAD "$lib" -genv GRIDCOLL_TOPOLOGY "$map" -genv GRIDCOLL_VERBOSE 1)
    while [ "$1" != -- ]; do env+=(-genv "${1%%=*}" "${1#*=}"); shift; done
    shift
    timeout -k 10 240 mpirun.mpich -np 2 "${env[@]}" "$@"
  }
  ;;
*) fail "unknown MPI '$mpi' (openmpi or mpich)" ;;
esac
[ -f "$lib" ] || fail "no $lib"
cd "$dir" || fail "cannot enter $dir"
# ran COLL METHOD-REGEX: the log says some communicator's COLL ran with a matching method
ran() { grep -Eq "gridcoll-pmpi\[[0-9]+\]: [^ ]+ MPI_$1 [^:]*: $2" err || fail "no 'MPI_$1 ...: $2' in the log"; }
forced=(GRIDCOLL_BCAST_ALGORITHM=wanstream GRIDCOLL_REDUCE_ALGORITHM=packed GRIDCOLL_ALLREDUCE_ALGORITHM=multitree)
for map in "${maps[@]}"; do
  for settings in default forced; do
    env=()
    [ $settings = forced ] && env=("${forced[@]}")
    what="${map#map:levels wan site;}, $settings"
    for tester in xCbtest xFbtest; do
      launch "$map" "${env[@]}" -- "$programs/$tester" > out 2> err || fail "$tester ($what): exit status $?"
      grep -q "THERE WERE NO FAILURES IN THIS TEST RUN" out || fail "$tester ($what): failures reported"
      # every summary (sends and broadcasts in five precisions, sum / max / min in four: the
      # tester's defaults) counts some tests passed and none failed
      [ "$(grep -cE "TESTS; +[1-9][0-9]* PASSED, +[0-9]+ SKIPPED, +0 FAILED\." out)" -eq 22 ] ||
        fail "$tester ($what): not 22 summaries of passed tests"
      if [ $settings = default ]; then
        for c in Bcast Reduce Allreduce; do ran $c "leaders \(builtin: sites joined by a WAN"; done
      else
        ran Bcast "wanstream \(forced"; ran Reduce "packed \(forced"; ran Allreduce "multitree \(forced"
      fi
    done
    for solver in xdlu xzqr; do
      launch "$map" "${env[@]}" -- "$programs/$solver" > out 2> err || fail "$solver ($what): exit status $?"
      grep -Eq "^ +[1-9][0-9]* tests completed and passed residual checks" out || fail "$solver ($what): no test passed"
      grep -Eq "^ +0 tests completed and failed residual checks" out || fail "$solver ($what): residual checks failed"
      ran Bcast "(leaders|wanstream) \((builtin|forced)"
    done
  done
done
echo "scalapack_check.sh $mpi: the BLACS testers and the LU / QR drivers passed with the library on ${#maps[@]} rank map(s)"
