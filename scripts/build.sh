#!/usr/bin/env bash
# Configure and build tplan. Usage: scripts/build.sh [--sanitize]
#   default     build/       (RelWithDebInfo, warnings are errors)
#   --sanitize  build-asan/  (AddressSanitizer + UndefinedBehaviorSanitizer)
# The tests are built when cmocka is installed; TPLAN_TESTS=ON in the
# environment requires them (scripts/test.sh), TPLAN_TESTS=OFF leaves them out.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
flags=(-DTPLAN_WERROR=ON)
[ -z "${TPLAN_TESTS:-}" ] || flags+=(-DTPLAN_TESTS="$TPLAN_TESTS")
if [ "${1:-}" = "--sanitize" ]; then
    dir=build-asan
    flags+=(-DTPLAN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
