#!/usr/bin/env bash
# lammps_check.sh BUILD_DIR [emulated SOURCE_DIR]: an unmodified third-party program on the PMPI
# library — LAMMPS, the molecular dynamics code (Debian packages lammps and lammps-examples,
# built against Open MPI).
# Three of its shipped examples whose printed thermodynamics do not depend on the order in which
# a sum is taken (in the others a last-bit difference in a reduced sum grows into a different
# trajectory, as it does with another of Open MPI's own allreduce algorithms): melt (Lennard-Jones,
# constant energy), rigid (rigid bodies, their forces summed by MPI_Allreduce every step) and
# balance.neigh.rcb (load balancing by recursive bisection: allgathers, reduce_scatter, scans).
# Each runs on 4 ranks without the library (the reference), then preloaded on a rank map of WAN
# sites at the defaults and with methods forced; every thermodynamic row must agree with the
# reference to 1e-9 relative, and the verbose log must show the library's own methods ran.
# With `emulated` (as root): melt (100 steps) on 8 ranks across the emulated WAN ring ring-4x2
# (four sites, a ring of 10 ms links, broadcasts on the packed trees through the routers) against
# 8 ranks on this machine without the library.
set -u
build=$(cd "${1:?usage: lammps_check.sh BUILD_DIR [emulated SOURCE_DIR]}" && pwd) ||
  { echo "lammps_check.sh: no build directory ${1:-}"; exit 1; }
mode=${2:-loopback} src=${3:-}
case $mode in
loopback | emulated) ;;
*) echo "lammps_check.sh: unknown mode '$mode' (loopback or emulated)"; exit 2 ;;
esac
lib=$build/lib/libgridcoll_pmpi.so examples=/usr/share/lammps/examples
. "$(dirname "$0")/third_party.sh" || { echo "lammps_check.sh: no third_party.sh beside it"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
command -v lmp > /dev/null && [ -d "$examples/melt" ] ||
  fail "no lmp or $examples: the Debian packages lammps and lammps-examples are missing (scripts/install-deps.sh installs them)"
[ -f "$lib" ] || fail "no $lib"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_orte_base_help_aggregate=0
map="map:levels wan site;rank 0 0 1;rank 1 0 0;rank 2 0 2;rank 3 0 0"
forced=(GRIDCOLL_ALLREDUCE_ALGORITHM=multitree GRIDCOLL_BCAST_ALGORITHM=wanstream
        GRIDCOLL_ALLGATHER_ALGORITHM=packed GRIDCOLL_REDUCE_SCATTER_ALGORITHM=leaders
        GRIDCOLL_SCAN_ALGORITHM=eco)
# lammps DIR INPUT LOG ENV...: one run of an example (in a copy of its directory) on $np ranks
np=4
lammps() {
  local d=$1 input=$2 log=$3; shift 3
  local env=()
  for s in "$@"; do env+=(-x "$s"); done
  (cd "$d" && timeout -k 10 90 mpirun -np $np --oversubscribe --mca btl self,vader,tcp \
     --mca btl_tcp_if_include lo "${env[@]}" lmp -in "$input" -log "$log") > "$dir/out" 2> "$dir/err"
}
# thermo LOG: the rows of the log's thermodynamic tables (the lines between a "Step" header and
# "Loop time"), one per line
thermo() { awk '/^ *Step /{on = 1; next} /^Loop time/{on = 0} on' "$1"; }
# copy EXAMPLE: the example's directory copied into $dir; sets d and input
copy() {
  d=$dir/${1%%/*} input=${1#*/}
  cp -r "$examples/${1%%/*}" "$d" || fail "cannot copy $examples/${1%%/*}"
}
# reference EXAMPLE: its run without the library, its thermodynamic rows in $d/reference.rows
reference() {
  lammps "$d" "$input" reference.log || fail "$1 without the library: exit status $?"
  thermo "$d/reference.log" > "$d/reference.rows"
  [ -s "$d/reference.rows" ] || fail "$1 without the library: no thermodynamic rows"
}
if [ "$mode" = emulated ]; then
  [ "$(id -u)" = 0 ] || { echo "lammps_check.sh emulated: needs root (network namespaces)"; exit 77; }
  [ -f "$src/tests/emulator/platforms/ring-4x2.toml" ] || fail "no ring-4x2.toml under '$src'"
  np=8 what="melt across the emulated ring-4x2"
  copy melt/in.melt
  # 100 steps, not 250 (each step waits on the WAN several times), thermodynamics every 20
  sed -i -e 's/^run[[:space:]].*/run 100/' -e 's/^thermo[[:space:]].*/thermo 20/' "$d/$input" &&
    grep -qx 'run 100' "$d/$input" && grep -qx 'thermo 20' "$d/$input" || fail "$input: no run / thermo line to shorten"
  reference melt/in.melt
  "$build/bin/gridcoll" platform ranks "$src/tests/emulator/platforms/ring-4x2.toml" -o "$dir/ring.ranks" ||
    fail "no rank map"
  # each host writes into a private layer over /tmp: the log goes to standard output
  "$build/bin/gridcoll" emulate run --no-check --name pmpi-lammps "$src/tests/emulator/platforms/ring-4x2.toml" -- \
    env LD_PRELOAD="$lib" GRIDCOLL_TOPOLOGY="$dir/ring.ranks" GRIDCOLL_VERBOSE=1 \
    lmp -in "$d/$input" -log none > "$dir/out" 2> "$dir/err" || fail "$what: exit status $?"
  thermo "$dir/out" > "$d/emulated.rows"
  rows_agree "$d/emulated.rows" "$d/reference.rows" 0 || fail "$what: the thermodynamics differ from the reference"
  ran Bcast "packed \(builtin: sites joined by a WAN graph"; ran Allreduce "leaders \(builtin"
  echo "lammps_check.sh: $what, $(wc -l < "$d/reference.rows") thermodynamic rows agree"
  exit 0
fi
for example in melt/in.melt rigid/in.rigid balance/in.balance.neigh.rcb; do
  copy "$example" && reference "$example"
  for settings in default forced; do
    what="$example, $settings"
    env=(LD_PRELOAD="$lib" GRIDCOLL_TOPOLOGY="$map" GRIDCOLL_VERBOSE=1)
    [ $settings = forced ] && env+=("${forced[@]}")
    lammps "$d" "$input" $settings.log "${env[@]}" || fail "$what: exit status $?"
    thermo "$d/$settings.log" > "$d/$settings.rows"
    rows_agree "$d/$settings.rows" "$d/reference.rows" 0 || fail "$what: the thermodynamics differ from the reference"
    if [ $settings = default ]; then
      ran Allreduce "leaders \(builtin: sites joined by a WAN"; ran Bcast "leaders \(builtin: sites joined by a WAN"
    else
      ran Allreduce "multitree \(forced"; ran Bcast "wanstream \(forced"
    fi
    # the balancing example's collectives beyond allreduce and broadcast
    [ "$example $settings" = "balance/in.balance.neigh.rcb forced" ] &&
      { ran Allgather "packed \(forced"; ran Reduce_scatter "leaders \(forced"; ran Scan "eco \(forced"; }
    echo "lammps ($what): $(wc -l < "$d/reference.rows") thermodynamic rows agree"
  done
done
echo "lammps_check.sh: every run agreed"
