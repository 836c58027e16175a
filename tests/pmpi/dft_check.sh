#!/usr/bin/env bash
# dft_check.sh BUILD_DIR: two unmodified third-party electronic-structure codes on the PMPI
# library, both built by Debian against Open MPI and ScaLAPACK; each runs on 4 ranks without the
# library (the reference), then preloaded on a rank map of two WAN sites (ranks round-robin: a
# group of two consecutive ranks spans both sites, one of every second rank lies in one) at the
# defaults and with sets of gridcoll's methods forced; what it prints must agree with the
# reference, and the verbose log must show the library's methods ran.
# - Quantum ESPRESSO's plane-wave code pw.x (package quantum-espresso): a self-consistent field
#   run of eight silicon atoms (the pseudopotential Debian ships) under five of pw.x's ways of
#   dividing the work, each confirmed by the line pw.x prints for it: plane waves alone with a
#   serial diagonalisation (-nd 1; the 3-D FFTs transposed by MPI_Alltoall), k-point pools
#   (-nk 2), ScaLAPACK's diagonalisation on a 2 x 2 grid (-nd 4), FFT task groups (-ntg 2:
#   MPI_Alltoallv) and band groups (-nb 2). Compared: the SCF iterations (equal), the total
#   energy, every force component and the stress tensor, to 1e-9 relative plus one unit of the
#   last printed digit.
# - CP2K's Quickstep (package cp2k): five steps of Born-Oppenheimer molecular dynamics of two
#   water molecules (Gaussian and plane waves; matrix redistributions and grid transfers by
#   MPI_Alltoallv, on communicators MPI_Cart_create and MPI_Cart_sub make among others).
#   Compared: the total energy at each step, printed to 17 digits, to 1e-9 relative.
set -u
build=$(cd "${1:?usage: dft_check.sh BUILD_DIR}" && pwd) || { echo "dft_check.sh: no build directory ${1:-}"; exit 1; }
lib=$build/lib/libgridcoll_pmpi.so pseudo=/usr/share/espresso/pseudo
. "$(dirname "$0")/third_party.sh" || { echo "dft_check.sh: no third_party.sh beside it"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
command -v pw.x > /dev/null && [ -f "$pseudo/Si.pz-vbc.UPF" ] ||
  fail "no pw.x or $pseudo/Si.pz-vbc.UPF: the Debian packages quantum-espresso and quantum-espresso-data (its pseudopotentials) are missing (scripts/install-deps.sh installs them)"
command -v cp2k.psmp > /dev/null && [ -f /usr/share/cp2k/BASIS_MOLOPT ] ||
  fail "no cp2k.psmp or /usr/share/cp2k/BASIS_MOLOPT: the Debian package cp2k is missing (scripts/install-deps.sh installs it)"
[ -f "$lib" ] || fail "no $lib"
cd "$dir" || fail "cannot enter $dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_orte_base_help_aggregate=0
map="map:levels wan site;rank 0 0 0;rank 1 0 1;rank 2 0 0;rank 3 0 1"
forced_a=(GRIDCOLL_ALLTOALL_ALGORITHM=paired GRIDCOLL_ALLTOALLV_ALGORITHM=paired GRIDCOLL_BCAST_ALGORITHM=packed
          GRIDCOLL_ALLREDUCE_ALGORITHM=packed GRIDCOLL_BARRIER_ALGORITHM=magpie GRIDCOLL_ALLGATHERV_ALGORITHM=leaders
          GRIDCOLL_REDUCE_ALGORITHM=packed)
forced_b=(GRIDCOLL_ALLTOALL_ALGORITHM=bruck GRIDCOLL_ALLTOALLV_ALGORITHM=pairwise GRIDCOLL_BCAST_ALGORITHM=wanstream
          GRIDCOLL_ALLREDUCE_ALGORITHM=multitree GRIDCOLL_BARRIER_ALGORITHM=bruck GRIDCOLL_ALLGATHERV_ALGORITHM=packed
          GRIDCOLL_REDUCE_ALGORITHM=coleaders)
# run4 OUT ENV... -- PROGRAM ARGS...: one run on 4 ranks (one OpenMP thread each), its output in OUT
run4() {
  local out=$1 env=(-x OMP_NUM_THREADS=1)
  shift
  while [ "$1" != -- ]; do env+=(-x "$1"); shift; done
  shift
  timeout -k 10 120 mpirun -np 4 --oversubscribe --mca btl self,vader,tcp --mca btl_tcp_if_include lo \
    "${env[@]}" "$@" > "$out" 2> "$dir/err"
  local status=$?
  cp "$out" "$dir/out"
  return $status
}
# with_library default | forced a|b: sets env, the environment of a run with the library
with_library() {
  env=(LD_PRELOAD="$lib" GRIDCOLL_TOPOLOGY="$map" GRIDCOLL_VERBOSE=1)
  if [ "$1" = forced ]; then
    if [ "$2" = a ]; then env+=("${forced_a[@]}"); else env+=("${forced_b[@]}"); fi
  fi
}

# Quantum ESPRESSO: eight silicon atoms in a cubic cell, one displaced so that forces and stress
# are not zero
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
# results OUT: what pw.x printed of its result, a row of numbers a line: the total energy, the SCF
# iterations, each atom's force, the pressure and the stress tensor's rows
results() {
  awk '/convergence has been achieved in/ { print $(NF - 1) }
       /^!/ { print $(NF - 1) }
       /^ *atom +[0-9]+ type +[0-9]+ +force =/ { print $7, $8, $9 }
       /total +stress/ { print $NF; stress = 3; next }
       stress > 0 { print; stress-- }' "$1"
}
# each way of dividing the work: pw.x's options, then the line (a regular expression) it prints
# when it divides the work that way
ways=("-nd 1|a serial algorithm will be used"
      "-nk 2|K-points division: +npool += +2"
      "-nd 4|scalapack distributed-memory algorithm \\(size of sub-group: +2\\* +2 procs\\)"
      "-ntg 2|wavefunctions fft division: +task group distribution"
      "-nb 2|band groups division: +nbgrp += +2")
n=0
for way in "${ways[@]}"; do
  n=$((n + 1)) options=${way%%|*} printed=${way#*|}
  what="pw.x $options, without the library"
  # shellcheck disable=SC2086 # the options are words
  run4 reference.out -- pw.x $options -in si8.in || fail "$what: exit status $?"
  grep -Eq "$printed" reference.out || fail "$what: pw.x did not print '$printed'"
  results reference.out > reference.rows
  [ "$(wc -l < reference.rows)" = 14 ] || fail "$what: not the 14 rows of a converged run with forces and stress"
  set=a
  [ $((n % 2)) = 0 ] && set=b
  for settings in default forced; do
    what="pw.x $options, $settings"
    with_library $settings $set
    # shellcheck disable=SC2086 # the options are words
    run4 $settings.out "${env[@]}" -- pw.x $options -in si8.in || fail "$what: exit status $?"
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
    if [ "$options $settings" = "-ntg 2 forced" ]; then ran Alltoallv "pairwise \(forced"; fi
    echo "qe ($what): energy $(sed -n 1p reference.rows) Ry, forces and stress agree"
  done
done

# CP2K: two water molecules, PBE, a molecularly optimised double-zeta basis, GTH pseudopotentials
cat > h2o.inp <<'EOF' || fail "cannot write h2o.inp"
&GLOBAL
  PROJECT h2o
  RUN_TYPE MD
  PRINT_LEVEL LOW
&END GLOBAL
&MOTION
  &MD
    ENSEMBLE NVE
    STEPS 5
    TIMESTEP 0.5
    TEMPERATURE 300
  &END MD
&END MOTION
&FORCE_EVAL
  METHOD Quickstep
  &DFT
    BASIS_SET_FILE_NAME BASIS_MOLOPT
    POTENTIAL_FILE_NAME GTH_POTENTIALS
    &MGRID
      CUTOFF 200
    &END MGRID
    &SCF
      EPS_SCF 1.0E-7
      SCF_GUESS ATOMIC
      MAX_SCF 40
    &END SCF
    &XC
      &XC_FUNCTIONAL PBE
      &END XC_FUNCTIONAL
    &END XC
  &END DFT
  &SUBSYS
    &CELL
      ABC 8.0 8.0 8.0
    &END CELL
    &COORD
      O   0.000  0.000  0.000
      H   0.757  0.586  0.000
      H  -0.757  0.586  0.000
      O   3.000  3.000  3.000
      H   3.757  3.586  3.000
      H   2.243  3.586  3.000
    &END COORD
    &KIND H
      BASIS_SET DZVP-MOLOPT-SR-GTH
      POTENTIAL GTH-PBE-q1
    &END KIND
    &KIND O
      BASIS_SET DZVP-MOLOPT-SR-GTH
      POTENTIAL GTH-PBE-q6
    &END KIND
  &END SUBSYS
&END FORCE_EVAL
EOF
# energies OUT: the total energy at the start and after each MD step, one a line
energies() { awk '/^ ENERGY\| Total FORCE_EVAL/ { print $NF }' "$1"; }
what="cp2k, without the library"
run4 reference.out -- cp2k.psmp -i h2o.inp || fail "$what: exit status $?"
energies reference.out > reference.rows
[ "$(wc -l < reference.rows)" = 6 ] || fail "$what: not the 6 energies of five MD steps"
for settings in default forced:a forced:b; do
  what="cp2k, $settings"
  with_library "${settings%%:*}" "${settings#*:}"
  run4 cp2k.out "${env[@]}" -- cp2k.psmp -i h2o.inp || fail "$what: exit status $?"
  energies cp2k.out > cp2k.rows
  rows_agree cp2k.rows reference.rows 0 || fail "$what: the energies differ from the reference"
  case $settings in
  default) ran Allreduce "leaders \(builtin: sites joined by a WAN"; ran Alltoallv "native \(builtin" ;;
  forced:a)
    ran Alltoallv "paired \(forced"; ran Allreduce "packed \(forced"; ran Reduce "packed \(forced"
    ran Bcast "packed \(forced"; ran Barrier "magpie \(forced" ;;
  forced:b)
    ran Alltoallv "pairwise \(forced"; ran Allreduce "multitree \(forced"; ran Reduce "coleaders \(forced"
    ran Bcast "wanstream \(forced"; ran Barrier "bruck \(forced" ;;
  esac
  echo "cp2k ($what): the $(wc -l < reference.rows) energies agree, the last $(tail -1 reference.rows) a.u."
done
echo "dft_check.sh: every run agreed"
