#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (unit, Open MPI, SMPI).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
