#!/usr/bin/env bash
# Builds everything device_run.sh runs, on this machine (no GPU needed), and packs it for the device
# tool to carry: device_run.sh --prebuilt then starts at the tests, sparing the device's time the
# build (4 to 5 minutes of it). The CTest files name this checkout's absolute path; on the device
# device_run.sh links that path to its own checkout.
# Usage, from the repository root:
#   bash benchmarks/prebuild.sh        # writes .carry/prebuilt.tgz; then run, carrying .carry:
#   bash benchmarks/device_run.sh --prebuilt [other options]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake_args=(-DCMAKE_BUILD_TYPE=Release)
# DLPack's header (the device has none), and nvcc for jet_bench's hand-written peers.
[ -f .carry/dlpack/dlpack/dlpack.h ] && cmake_args+=("-DDLPACK_INCLUDE_DIR=$PWD/.carry/dlpack")
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] && cmake_args+=("-DCMAKE_CUDA_COMPILER=$nvcc")
cmake -S . -B build-device -G Ninja "${cmake_args[@]}" >/dev/null
cmake --build build-device
echo "$PWD" >build-device/jet-source-dir
mkdir -p .carry
find build-device -path build-device/CMakeFiles -prune -o -path '*/CMakeFiles' -prune -o -type f \
  \( -perm -u+x -o -name '*.cmake' -o -name '*.so' -o -name jet-source-dir \) -print |
  tar czf .carry/prebuilt.tgz -T -
echo "packed $(du -h .carry/prebuilt.tgz | cut -f1): .carry/prebuilt.tgz"
