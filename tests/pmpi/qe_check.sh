#!/usr/bin/env bash
# qe_check.sh BUILD_DIR: an unmodified third-party program on the PMPI library — Quantum
# ESPRESSO's plane-wave code pw.x (Debian package quantum-espresso, built against Open MPI and
# ScaLAPACK). A self-consistent field run of eight silicon atoms (the pseudopotential Debian
# ships) under each of pw.x's ways of dividing the work: plane waves alone (its 3-D FFTs
# transposed by MPI_Alltoall), k-point pools (-nk 2: sums across pools), ScaLAPACK's
# diagonalisation (-nd 4), FFT task groups (-ntg 2: MPI_Alltoallv) and band groups (-nb 2).
# Each runs on 4 ranks without the library (the reference), then preloaded on a rank map of two
# WAN sites (ranks round-robin, so every group spans both) at the defaults and with a set of
# gridcoll's methods forced. What pw.x prints must agree with the reference: the number of SCF
# iterations, the total energy, every force component and the stress tensor, to 1e-9 relative
# or one unit of the last printed digit. The verbose log must show the library's methods ran.
set -u
build=$(cd "${1:?usage: qe_check.sh BUILD_DIR}" && pwd) || { echo "qe_check.sh: no build directory ${1:-}"; exit 1; }
lib=$build/lib/libgridcoll_pmpi.so pseudo=/usr/share/espresso/pseudo
. "$(dirname "$0")/rows_agree.sh" || { echo "qe_check.sh: no rows_agree.sh beside it"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "qe_check.sh: $*"
  for f in "$dir/out" "$dir/err"; do [ -f "$f" ] && tail -20 "$f"; done
  exit 1
}
command -v pw.x > /dev/null && [ -f "$pseudo/Si.pz-vbc.UPF" ] ||
  fail "no pw.x or $pseudo/Si.pz-vbc.UPF: the Debian package quantum-espresso is missing (scripts/install-deps.sh installs it)"
[ -f "$lib" ] || fail "no $lib"
cd "$dir" || fail "cannot enter $dir"
# eight silicon atoms in a cubic cell, one displaced so that forces and stress are not zero
cat > si8.in <<EOF || fail "cannot write si8.in"
 &control
    calculation = 'scf', prefix = 'si8', pseudo_dir = '$pseudo', outdir = './scratch'
    tprnfor = .true., tstress = .true.
 /
 &system
    ibrav = 1, celldm(1) = 10.26, nat = 8, ntyp = 1, ecutwfc = 20.0
 /
 &electrons
    conv_thr = 1.0d-10
 /
ATOMIC_SPECIES
 Si 28.086 Si.pz-vbc.UPF
ATOMIC_POSITIONS crystal
 Si 0.00 0.00 0.00
 Si 0.50 0.50 0.00
 Si 0.50 0.00 0.50
 Si 0.00 0.50 0.50
 Si 0.27 0.25 0.25
 Si 0.75 0.75 0.25
 Si 0.75 0.25 0.75
 Si 0.25 0.75 0.75
K_POINTS automatic
 2 2 2 0 0 0
EOF
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_orte_base_help_aggregate=0
map="map:levels wan site;rank 0 0 0;rank 1 0 1;rank 2 0 0;rank 3 0 1"
forced_a=(GRIDCOLL_ALLTOALL_ALGORITHM=paired GRIDCOLL_ALLTOALLV_ALGORITHM=paired GRIDCOLL_BCAST_ALGORITHM=packed
          GRIDCOLL_ALLREDUCE_ALGORITHM=packed GRIDCOLL_BARRIER_ALGORITHM=magpie GRIDCOLL_ALLGATHERV_ALGORITHM=leaders)
forced_b=(GRIDCOLL_ALLTOALL_ALGORITHM=bruck GRIDCOLL_ALLTOALLV_ALGORITHM=pairwise GRIDCOLL_BCAST_ALGORITHM=wanstream
          GRIDCOLL_ALLREDUCE_ALGORITHM=multitree GRIDCOLL_BARRIER_ALGORITHM=bruck GRIDCOLL_ALLGATHERV_ALGORITHM=packed)
# pwx OUT OPTIONS ENV...: one run of pw.x on 4 ranks, its output in OUT
pwx() {
  local out=$1 options=$2; shift 2
  local env=()
  for s in "$@"; do env+=(-x "$s"); done
  # shellcheck disable=SC2086 # the options are words
  timeout -k 10 120 mpirun -np 4 --oversubscribe --mca btl self,vader,tcp --mca btl_tcp_if_include lo \
    "${env[@]}" pw.x $options -in si8.in > "$out" 2> "$dir/err"
  local status=$?
  cp "$out" "$dir/out"
  return $status
}
# results OUT: what pw.x printed of its result, a row of numbers a line: the total energy, the SCF
# iterations, each atom's force, the pressure and the stress tensor's rows
results() {
  awk '/convergence has been achieved in/ { print $(NF - 1) }
       /^!/ { print $(NF - 1) }
       /^ *atom +[0-9]+ type +[0-9]+ +force =/ { print $7, $8, $9 }
       /total +stress/ { print $NF; stress = 3; next }
       stress > 0 { print; stress-- }' "$1"
}
# ran COLL METHOD-REGEX: the log says some communicator's COLL ran with a matching method
ran() { grep -Eq "gridcoll-pmpi\[[0-9]+\]: [^ ]+ MPI_$1 [^:]*: $2" "$dir/err" || fail "no 'MPI_$1 ...: $2' in the log ($what)"; }
n=0
for options in "" "-nk 2" "-nd 4" "-ntg 2" "-nb 2"; do
  n=$((n + 1))
  what="pw.x ${options:-(plane waves)}, without the library"
  pwx reference.out "$options" || fail "$what: exit status $?"
  results reference.out > reference.rows
  [ "$(wc -l < reference.rows)" = 14 ] || fail "$what: not the 14 rows of a converged run with forces and stress"
  for settings in default forced; do
    what="pw.x ${options:-(plane waves)}, $settings"
    env=(LD_PRELOAD="$lib" GRIDCOLL_TOPOLOGY="$map" GRIDCOLL_VERBOSE=1)
    set=a
    [ $((n % 2)) = 0 ] && set=b
    [ $settings = forced ] && { if [ $set = a ]; then env+=("${forced_a[@]}"); else env+=("${forced_b[@]}"); fi; }
    pwx $settings.out "$options" "${env[@]}" || fail "$what: exit status $?"
    results $settings.out > $settings.rows
    rows_agree $settings.rows reference.rows 1 || fail "$what: the results differ from the reference"
    if [ $settings = default ]; then
      ran Bcast "(leaders|wanstream) \(builtin: sites joined by a WAN"
      ran Allreduce "(leaders|multitree) \(builtin: sites joined by a WAN"
    elif [ $set = a ]; then
      ran Alltoall "paired \(forced"; ran Bcast "packed \(forced"; ran Allreduce "packed \(forced"
    else
      ran Alltoall "bruck \(forced"; ran Bcast "wanstream \(forced"; ran Allreduce "multitree \(forced"
    fi
    [ "$options $settings" = "-ntg 2 forced" ] && ran Alltoallv "pairwise \(forced"
    echo "qe ($what): energy $(sed -n 1p reference.rows) Ry, forces and stress agree"
  done
done
echo "qe_check.sh: every run agreed"
