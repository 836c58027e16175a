#!/usr/bin/env bash
# Configures and builds gridcoll into ./build (Release). Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3 "$@" >/dev/null
cmake --build build -j"$(nproc)"
