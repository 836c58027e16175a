#!/usr/bin/env bash
# hpcc_check.sh BUILD_DIR: an unmodified third-party program on the PMPI library — the HPC
# Challenge benchmark (Debian package hpcc, built against Open MPI). Its collectives: parameters
# broadcast, results reduced and gathered, PTRANS's allreduces and barriers on 180 grid
# communicators, the distributed FFT's transposes and RandomAccess's verification by
# MPI_Alltoall. Its checks: PTRANS's residuals, every RandomAccess table entry, HPL's solve
# residuals (72 runs: two sizes and block sizes, 2 x 2, 1 x 4 and 4 x 1 grids, HPL's six panel
# broadcasts; HPL communicates point to point, so these show the library leaves that alone), and
# the FFT's error, which hpcc prints and this script bounds (1e-12). Each run has the library
# preloaded on a rank map of WAN sites (4 ranks), at the defaults and with two sets of gridcoll's
# methods forced, and must pass every check; the verbose log must show the library's own methods
# ran.
set -u
build=$(cd "${1:?usage: hpcc_check.sh BUILD_DIR}" && pwd) || { echo "hpcc_check.sh: no build directory ${1:-}"; exit 1; }
lib=$build/lib/libgridcoll_pmpi.so
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "hpcc_check.sh: $*"
  for f in "$dir/hpccoutf.txt" "$dir/err"; do [ -f "$f" ] && tail -20 "$f"; done
  exit 1
}
command -v hpcc > /dev/null ||
  fail "no hpcc: the Debian package hpcc is missing (scripts/install-deps.sh installs it)"
[ -f "$lib" ] || fail "no $lib"
cd "$dir" || fail "cannot enter $dir"
# HPL's input (the format of HPL.dat, then PTRANS's extra sizes): small problems, many shapes
cat > hpccinf.txt <<'EOF' || fail "cannot write hpccinf.txt"
HPLinpack benchmark input file
gridcoll hpcc_check.sh
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
2            # of problems sizes (N)
400 601      Ns
2            # of NBs
32 80        NBs
0            PMAP process mapping (0=Row-,1=Column-major)
3            # of process grids (P x Q)
2 1 4        Ps
2 4 1        Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
6            # of broadcast
0 1 2 3 4 5  BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
2                      		Number of additional problem sizes for PTRANS
250 700                 	values of N
2                       	number of additional blocking sizes for PTRANS
17 64                   	values of NB
EOF
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_orte_base_help_aggregate=0
maps=("map:levels wan site;rank 0 0 1;rank 1 0 0;rank 2 0 2;rank 3 0 0"
      "map:levels wan site;rank 0 0 0;rank 1 0 0;rank 2 0 1;rank 3 0 1")
forced1=(GRIDCOLL_BCAST_ALGORITHM=wanstream GRIDCOLL_REDUCE_ALGORITHM=packed
         GRIDCOLL_ALLREDUCE_ALGORITHM=multitree GRIDCOLL_ALLTOALL_ALGORITHM=eco
         GRIDCOLL_BARRIER_ALGORITHM=magpie GRIDCOLL_GATHER_ALGORITHM=multilevel)
forced2=(GRIDCOLL_BCAST_ALGORITHM=packed GRIDCOLL_REDUCE_ALGORITHM=coleaders
         GRIDCOLL_ALLREDUCE_ALGORITHM=packed GRIDCOLL_ALLTOALL_ALGORITHM=bruck
         GRIDCOLL_BARRIER_ALGORITHM=bruck GRIDCOLL_GATHER_ALGORITHM=binomial)
# ran COLL METHOD-REGEX: the log says some communicator's COLL ran with a matching method
ran() { grep -Eq "gridcoll-pmpi\[[0-9]+\]: [^ ]+ MPI_$1 [^:]*: $2" err || fail "no 'MPI_$1 ...: $2' in the log ($what)"; }
# value KEY: a key's value in the output's summary section
value() { sed -n "/^Begin of Summary/,/^End of Summary/s/^$1=//p" hpccoutf.txt; }
for map in "${maps[@]}"; do
  for settings in default forced1 forced2; do
    what="${map#map:levels wan site;}, $settings"
    env=(-x LD_PRELOAD="$lib" -x GRIDCOLL_TOPOLOGY="$map" -x GRIDCOLL_VERBOSE=1)
    if [ $settings != default ]; then
      declare -n set=$settings
      for s in "${set[@]}"; do env+=(-x "$s"); done
      unset -n set
    fi
    rm -f hpccoutf.txt
    timeout -k 10 90 mpirun -np 4 --oversubscribe --mca btl self,vader,tcp --mca btl_tcp_if_include lo \
      "${env[@]}" hpcc > out 2> err
    status=$?
    case $status in  # timeout's status: 124, or 137 when the run needed the KILL 10 s later
    124|137) fail "hpcc ($what): no end after 90 s (alone a run takes ~7 s), stopped (status $status)" ;;
    esac
    [ $status -eq 0 ] || fail "hpcc ($what): exit status $status"
    [ "$(value Success)" = 1 ] || fail "hpcc ($what): Success is not 1"
    # HPL's 72 runs and PTRANS's 180 (every size, block size and grid): each completed and
    # passed its residual check
    for n in 72 180; do
      grep -q "^ *$n tests completed and passed residual checks" hpccoutf.txt || fail "hpcc ($what): not $n passed"
    done
    [ "$(grep -c "^ *0 tests completed and failed residual checks" hpccoutf.txt)" -eq 2 ] ||
      fail "hpcc ($what): a residual check failed"
    for key in MPIRandomAccess_Errors MPIRandomAccess_LCG_Errors; do
      [ "$(value $key)" = 0 ] || fail "hpcc ($what): $key is $(value $key)"
    done
    awk -v e="$(value MPIFFT_maxErr)" 'BEGIN { exit !(e ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ && e + 0 < 1e-12) }' ||
      fail "hpcc ($what): MPIFFT_maxErr is '$(value MPIFFT_maxErr)'"
    case $settings in
    default) for c in Bcast Reduce Allreduce Barrier; do ran $c "leaders \(builtin: sites joined by a WAN"; done ;;
    forced1) ran Bcast "wanstream \(forced"; ran Reduce "packed \(forced"; ran Allreduce "multitree \(forced"
             ran Alltoall "eco \(forced"; ran Barrier "magpie \(forced"; ran Gather "multilevel \(forced" ;;
    forced2) ran Bcast "packed \(forced"; ran Reduce "coleaders \(forced"; ran Allreduce "packed \(forced"
             ran Alltoall "bruck \(forced"; ran Barrier "bruck \(forced"; ran Gather "binomial \(forced" ;;
    esac
    echo "hpcc ($what): every check passed"
  done
done
echo "hpcc_check.sh: every run passed"
