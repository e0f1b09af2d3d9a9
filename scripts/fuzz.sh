#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ (clang 14, libc++, ASan + UBSan) into
# ./build-fuzz and runs each for a bounded time. Fails on any crash, leak,
# sanitizer report or time-out. CI runs it after the test suite.
#
#   FUZZ_SECONDS=30      run time of each target (default 30, what CI runs)
#   FUZZ_TARGETS="..."   a subset of: request json_body bearer email client_address legacy_hash webauthn
#   FUZZ_JOBS=1          parallel targets (default: one per core, at most 2)
#
# A crash leaves its input as build-fuzz/artifacts/<target>/crash-*; replay
# it with: build-fuzz/fuzz_<target> build-fuzz/artifacts/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-30}"
targets=(${FUZZ_TARGETS:-request json_body bearer email client_address legacy_hash webauthn})
jobs="${FUZZ_JOBS:-$(($(nproc) >= 2 ? 2 : 1))}"

# clang 14, libFuzzer and libc++ come from here (libc++ because clang 14
# cannot compile coroutines against GCC 12's libstdc++; see fuzz/CMakeLists.txt).
bash scripts/install-deps.sh

CXX=clang++-14 cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" >/dev/null
cmake --build build-fuzz

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

# One target: new inputs go to build-fuzz/corpus/<target> (the seed corpus
# in fuzz/corpus stays as committed); -error_exitcode makes any finding a
# failure, -timeout a hang one.
run() {
  local target="$1"
  rm -rf "build-fuzz/artifacts/$target" "build-fuzz/failed-$target"
  mkdir -p "build-fuzz/corpus/$target" "build-fuzz/artifacts/$target"
  local log="build-fuzz/fuzz_$target.log"
  local status=0
  "build-fuzz/fuzz_$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -error_exitcode=77 \
    -timeout_exitcode=78 -print_final_stats=1 -detect_leaks=1 \
    -artifact_prefix="build-fuzz/artifacts/$target/" \
    "build-fuzz/corpus/$target" "fuzz/corpus/$target" >"$log" 2>&1 || status=$?
  local execs
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  if [ "$status" -ne 0 ] || ls "build-fuzz/artifacts/$target"/* >/dev/null 2>&1; then
    echo "fuzz: $target FAILED (exit $status); log: $log" >&2
    tail -n 60 "$log" >&2
    touch "build-fuzz/failed-$target"
    return 1
  fi
  echo "fuzz: $target ok: ${execs:-?} inputs in ${seconds}s"
}

for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  run "$target" &
done
wait
failed=0
for target in "${targets[@]}"; do
  if [ -e "build-fuzz/failed-$target" ]; then failed=1; fi
done
exit "$failed"
