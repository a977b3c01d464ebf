#!/usr/bin/env bash
# Everything that needs the GPU, in one call on the device machine: build, every test (GPU ones
# included), the SASS check of the vector path, the benchmarks; a short table last.
# Usage (from the repository root): bash benchmarks/device_run.sh   — logs go to $OUT (or /tmp/jet-device).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/jet-device}
mkdir -p "$out/sass"
summary=()

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$out/gpu.txt"
if ! cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1; then
  tail -40 "$out/configure.log"; exit 1
fi
if ! cmake --build build-device -j 16 >"$out/build.log" 2>&1; then
  grep -m 30 -B2 -A8 "error" "$out/build.log"; exit 1
fi

# Every test; GPU tests one at a time so that none competes for the device.
(cd build-device && ctest -LE gpu -j 8 --output-on-failure >"$out/ctest-cpu.log" 2>&1)
(cd build-device && ctest -L gpu --output-on-failure >"$out/ctest-gpu.log" 2>&1)
grep -E "tests passed|tests failed|Failed|Skipped|\*\*\*" "$out/ctest-cpu.log" | tail -8
grep -E "tests passed|tests failed|Failed|Skipped|\*\*\*|random seed" "$out/ctest-gpu.log" | tail -20
summary+=("ctest cpu: $(grep -E 'tests passed' "$out/ctest-cpu.log")")
summary+=("ctest gpu: $(grep -E 'tests passed' "$out/ctest-gpu.log")")

# SASS: the full-tile path must use 128-bit loads and stores.
build-device/benchmarks/jet_kernel_cubins "$out/sass" >"$out/sass/compile.txt"
for f in "$out"/sass/*.cubin; do
  name=$(basename "$f" .cubin)
  cuobjdump --dump-sass "$f" >"$out/sass/$name.sass"
  widths=$(grep -oE "(LDG|STG)\.E[.A-Z0-9]*" "$out/sass/$name.sass" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  summary+=("sass $name: $widths")
done

echo
echo "=== summary ==="
printf '%s\n' "${summary[@]}"
