#!/usr/bin/env bash
# Everything that needs the GPU, in one call on the device machine: build, every test (GPU ones
# included, the fuzzer among them), a few GPU tests under compute-sanitizer, the SASS check of the
# vector path, the benchmarks (jet, hand-written CUDA, Thrust, the Python peers, kernel-shape
# tuning), the report; a short table last.
# Usage, from the repository root:
#   bash benchmarks/device_run.sh [--prebuilt] [--no-tests] [--no-cpu-tests] [--no-bench] [--no-peers] [--quick-peers] [--tune]
# --prebuilt: no build here; what benchmarks/prebuild.sh packed into .carry/prebuilt.tgz instead.
# Logs go to $OUT (the device tool's folder; at most 8 files come back: the GPU tests' log, the
# benchmarks' outputs, report.md and its two pictures, the sanitizer logs in one archive) or
# /tmp/jet-device; the rest stays in /tmp/jet-device-work.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/jet-device}
work=/tmp/jet-device-work
mkdir -p "$out" "$work/sass"
run_tests=1 run_cpu_tests=1 run_bench=1 run_peers=1 run_tune=0 prebuilt=0
for arg in "$@"; do
  case $arg in
    --prebuilt) prebuilt=1 ;; --no-tests) run_tests=0 ;; --no-cpu-tests) run_cpu_tests=0 ;; --no-bench) run_bench=0 ;;
    --no-peers) run_peers=0 ;; --quick-peers) export JET_BENCH_QUICK=1 ;; --tune) run_tune=1 ;;
  esac
done
summary=()

gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader)
echo "$gpu"
if ((prebuilt)); then
  # The CTest files name the checkout where prebuild.sh ran: that path leads here.
  rm -rf build-device && tar xzf .carry/prebuilt.tgz || exit 1
  source_dir=$(cat build-device/jet-source-dir)
  if [ ! -e "$source_dir" ]; then
    mkdir -p "$(dirname "$source_dir")" && ln -s "$PWD" "$source_dir" || exit 1
  elif [ ! "$source_dir" -ef "$PWD" ]; then
    echo "device_run.sh: the prebuilt CTest files name $source_dir, which is not this checkout"; exit 1
  fi
else
  # DLPack's header, for jet/dlpack.hpp's tests: the machine has none, so a copy carried in
  # .carry/dlpack/ is used when present (the DLPack tests are left out without it).
  cmake_args=()
  [ -f .carry/dlpack/dlpack/dlpack.h ] && cmake_args+=("-DDLPACK_INCLUDE_DIR=$PWD/.carry/dlpack")
  if ! cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release ${cmake_args[@]+"${cmake_args[@]}"} >"$work/configure.log" 2>&1; then
    tail -40 "$work/configure.log"; exit 1
  fi
  if ! cmake --build build-device -j 16 >"$work/build.log" 2>&1; then
    grep -m 30 -B2 -A8 "error" "$work/build.log"; exit 1
  fi
fi

if ((run_tests)); then
  if ((run_cpu_tests)); then
    (cd build-device && ctest -L cpu -j 8 --output-on-failure >"$work/ctest-cpu.log" 2>&1)
    grep -E "\*\*\*Failed" "$work/ctest-cpu.log"
    summary+=("ctest cpu: $(grep -E 'tests passed' "$work/ctest-cpu.log")")
  fi
  # GPU tests four at a time: they check results, not speed, and the device has room for them.
  (cd build-device && ctest -L gpu -j 4 --output-on-failure >"$out/ctest-gpu.log" 2>&1)
  grep -E "\*\*\*|random seed|element .* got" "$out/ctest-gpu.log" | head -20
  summary+=("ctest gpu: $(grep -E 'tests passed' "$out/ctest-gpu.log")")
  if grep -q "^DLPACK_INCLUDE_DIR:PATH=.*NOTFOUND" build-device/CMakeCache.txt; then
    summary+=("dlpack tests: not built (no .carry/dlpack/dlpack/dlpack.h)")
  else  # PyTorch through DLPack: passed, or skipped (no PyTorch) with the reason in the log
    summary+=("$(grep -m1 -E "gpu\.dlpack_torch .*(Passed|Skipped|Failed|\*\*\*)" "$out/ctest-gpu.log" | tr -s ' .')")
  fi
  # The fuzzers' one-line reports, compiled and interpreted (CTest keeps the output of passing
  # tests in LastTest.log, in the order they finished).
  while IFS= read -r line; do summary+=("$line"); done < <(grep -h "^fuzz" build-device/Testing/Temporary/LastTest.log)

fi

# SASS: the full-tile path must use 128-bit loads and stores.
build-device/benchmarks/jet_kernel_cubins "$work/sass" >"$work/sass/compile.txt"
: >"$work/sass.txt"
for f in "$work"/sass/*.cubin; do
  name=$(basename "$f" .cubin)
  cuobjdump --dump-sass "$f" >"$work/sass/$name.sass"
  { echo "=== $name"; cat "$work/sass/$name.cu"; grep -E "LDG|STG|EXIT|BRA" "$work/sass/$name.sass"; } >>"$work/sass.txt"
  widths=$(grep -oE "(LDG|STG|LDL|STL)[.A-Z0-9]*" "$work/sass/$name.sass" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  summary+=("sass $name: $widths")
done

if ((run_bench)); then
  build-device/benchmarks/jet_bench >"$out/jet_bench.txt" 2>&1
  grep -E "MISMATCH|SKIP|cannot" "$out/jet_bench.txt"
  if ((run_peers)); then
    PYTHONUNBUFFERED=1 python3 benchmarks/peers.py >"$out/peers.txt" 2>&1
    grep -E "SKIP|Error|error" "$out/peers.txt" | head -5
  fi
  # The numeric example at 10^8 unknowns, and the same program in PyTorch eager and torch.compile.
  { build-device/examples/heat_equation 10000 200; ((run_peers)) && python3 benchmarks/heat_torch.py 10000 200; } >"$out/heat.txt" 2>&1
  grep -E "SKIP|Error|largest difference" "$out/heat.txt"
  python3 benchmarks/report.py "$out/report.md" "$out/jet_bench.txt" "$out/peers.txt" "$out/heat.txt" 2>&1 | tee "$work/report.txt"
  if ((run_tune)); then  # kernel-shape tuning: jet alone at 2^20 and 2^28 under other threads,ilp shapes
    for shape in 256,4 128,4 256,2 512,2; do
      JET_KERNEL_SHAPE=$shape build-device/benchmarks/jet_bench --quick --jet-only --tag "$shape"
    done >"$out/tune.txt" 2>&1
    echo "--- tuning, float32 GB/s at 2^20 and 2^28 (jet's default shape is in the table above)"
    grep float32 "$out/tune.txt" | grep -E "expr=(add|chain) " | awk '{printf "%-14s %-14s %-12s %s\n", $2, $3, $5, $7}'
    # The interpreter with 8 elements per thread (16 is float32's default, in the report above).
    JET_INTERPRETER_ELEMENTS=8 build-device/benchmarks/jet_bench --interpreter-bandwidth >"$work/interp-8.txt" 2>&1
    cat "$work/interp-8.txt" >>"$out/tune.txt"
    echo "--- interpreter, 8 elements per thread: ops impl GB/s"
    grep "kind=bandwidth" "$work/interp-8.txt" | awk '{print $3, $4, $6}'
  fi
fi

if ((run_tests)); then
  # GPU sanitizers, under a minute: the GPU tests tagged [sanitize] (the fuzzer on a few
  # expressions, integer semantics, broadcasting, strided views) under memcheck and racecheck, and a
  # planted read past the end of an allocation that memcheck must report; racecheck also runs the
  # tiled kernels' shared-memory exchange. Logs: $out/sanitize-*.log.
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  sanitize() {  # sanitize <tool> <seconds> <command...>: one line, "<tool> <what>: <result>"
    local tool=$1 seconds=$2 log="$out/sanitize-$1-$(basename "$3").log"
    shift 2
    local start=$SECONDS
    JET_FUZZ_EXPRESSIONS=12 timeout "$seconds" "$sanitizer" --tool "$tool" --error-exitcode 99 "$@" >"$log" 2>&1
    local rc=$? errors
    errors=$(grep -hoE "(ERROR|RACECHECK) SUMMARY: .*" "$log" | tail -1)
    echo "$tool $(basename "$1") ${*:2}: ${errors:-no summary} (exit $rc, $((SECONDS - start)) s)"
    return $rc
  }
  summary+=("$(sanitize memcheck 30 build-device/tests/jet_gpu_tests "[sanitize]")")
  summary+=("$(sanitize racecheck 30 build-device/tests/jet_gpu_tests "[semantics],[tiled][sanitize]")")
  planted=$(sanitize memcheck 15 build-device/tests/jet_planted_out_of_bounds)
  if [ $? -eq 99 ] && grep -q "Invalid __global__ read" "$out/sanitize-memcheck-jet_planted_out_of_bounds.log"; then
    summary+=("planted out-of-bounds read: caught by memcheck ($planted)")
  else
    summary+=("planted out-of-bounds read: NOT caught by memcheck ($planted)")
  fi
fi

# At most 8 files come back from the device tool: the sanitizer logs travel as one archive.
if compgen -G "$out/sanitize-*.log" >/dev/null; then
  tar czf "$out/sanitize-logs.tgz" -C "$out" $(cd "$out" && ls sanitize-*.log) && rm -f "$out"/sanitize-*.log
fi

echo
echo "=== summary ($gpu) ==="
printf '%s\n' "${summary[@]}"
