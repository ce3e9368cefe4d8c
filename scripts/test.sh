#!/usr/bin/env bash
# Install the test tools, then build and run every test (unit, golden
# CLI, examples, install). Usage: scripts/test.sh [--sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."

dir=build
skip=()
# Under the sanitizers the install test is left out: it installs and runs
# the same code the other tests run (its own checks are of files in their
# places, man pages and completion), and at 3 minutes under ASan it was
# what pushed CI past its 20-minute budget. The plain pass runs it.
[ "${1:-}" = "--sanitize" ] && dir=build-asan && skip=(-E '^install$')
scripts/setup.sh --test
TPLAN_TESTS=ON scripts/build.sh "$@"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# the tests run side by side, one a core: each works in a directory of its
# own (mktemp), and CI's 20 minutes hold the suite twice (plain and
# sanitized) only that way
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" "${skip[@]}"
