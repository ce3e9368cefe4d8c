#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and
# run each for SECONDS (default 60) from its seed corpus in tests/fuzz/.
# New inputs go to a scratch corpus, not the repository's; each target
# runs in a scratch directory (build-fuzz/run/TARGET), so a file an input
# makes tplan write lands there; a crash stops the run with the
# reproducer in build-fuzz/crashes/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: calc calibrate catalog lua_api db expr paths)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(calc calibrate catalog lua_api db expr paths)
CC=clang cmake -S . -B build-fuzz -DTPLAN_FUZZ=ON -DTPLAN_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
mkdir -p build-fuzz/crashes
top=$(pwd)
for t in "${targets[@]}"; do
    work=$top/build-fuzz/corpus/$t
    mkdir -p "$work"
    cp -n tests/fuzz/corpus/$t/* "$work/" 2>/dev/null || true
    rm -rf "build-fuzz/run/$t" && mkdir -p "build-fuzz/run/$t"
    echo "fuzz_$t: ${secs}s"
    (cd "build-fuzz/run/$t" && "$top/build-fuzz/tests/fuzz/fuzz_$t" -max_total_time="$secs" \
        -print_final_stats=1 -artifact_prefix="$top/build-fuzz/crashes/$t-" -timeout=25 \
        -rss_limit_mb=4096 -close_fd_mask=3 "$work" 2>&1) | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)|ERROR|SUMMARY' || true
    if ls build-fuzz/crashes/$t-* >/dev/null 2>&1; then
        echo "fuzz_$t: FOUND A CRASH: $(ls build-fuzz/crashes/$t-*)"
        exit 1
    fi
done
