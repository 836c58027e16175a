#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs `gridcoll validate` on its built-in
# spec (python/gridcoll/specs/validate-das.toml): flat and hierarchical broadcasts and allreduce on
# das — closed form vs event simulator vs SMPI, plus the emulated testbed when run as root.
# Writes validate-das/ (results.sqlite, results.csv, figures.json, report.html) and prints where.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec build/bin/gridcoll-validate -o validate-das "$@"
