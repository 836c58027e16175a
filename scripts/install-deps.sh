#!/usr/bin/env bash
# Installs the Debian 12 packages gridcoll needs, if any are missing (run as root).
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libgtest-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev gfortran
  mpich libmpich-dev python3-mpi4py scalapack-mpi-test hpcc
  lammps lammps-examples quantum-espresso quantum-espresso-data cp2k
  libsimgrid-dev simgrid
  libcli11-dev libtomlplusplus-dev
  python3 python3-pytest
  iproute2 iputils-ping iperf3 procps util-linux
  python3-matplotlib python3-numpy
  python3-dev pybind11-dev python3-pybind11 python3-pandas python3-tqdm
  python3-distributed python3-dask python3-nbclient python3-nbformat python3-ipykernel
  chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run as root or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
