#!/usr/bin/env bash
# The split between what building tplan needs and what testing it needs:
# scripts/setup.sh refuses bad options before installing anything, and
# CMake configures without cmocka (the tests left out) unless
# TPLAN_TESTS=ON asks for them. cmocka is hidden from pkg-config rather
# than removed. Usage: test_setup.sh TPLAN_BINARY TESTS_DIR [CMAKE]
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"
root=$(dirname "$dir")
cmake=${3:-cmake}

# expect_fail STATUS "STDERR LINE" COMMAND...: fails so, one line, no stdout
expect_fail() {
    local want_rc=$1 want_err=$2 rc
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = "$want_rc" ] && [ "$(cat "$tmp/err")" = "$want_err" ] && [ ! -s "$tmp/out" ]; then
        ok
    else
        bad "$* -> exit $rc, stderr '$(head -n1 "$tmp/err")', want $want_rc '$want_err'"
    fi
}
expect_fail 2 "setup: unknown option '--tests' (usage: scripts/setup.sh [--test])" \
    "$root/scripts/setup.sh" --tests
expect_fail 2 "setup: one option at most (usage: scripts/setup.sh [--test])" \
    "$root/scripts/setup.sh" --test --test

# the main packages have no test tool; --test adds them
main=$(sed -n 's/^packages=(\(.*\))$/\1/p' "$root/scripts/setup.sh")
for p in cmake gcc make pkg-config liblua5.4-dev libsqlite3-dev libcsv-dev libjansson-dev; do
    [[ " $main " == *" $p "* ]] && ok || bad "setup.sh: $p is not a main package"
done
tests=$(awk '/^test_packages=\(/, /\)/' "$root/scripts/setup.sh" | tr '()' '  ' | xargs)
for p in libcmocka-dev jq zsh man-db chromium libreoffice-calc-nogui; do
    [[ " $main " != *" $p "* && " $tests " == *" $p "* ]] && ok ||
        bad "setup.sh: $p is not a test-only package"
done

# pkg-config without cmocka
mkdir "$tmp/pc"
for d in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
    for f in "$d"/*.pc; do
        [ -e "$f" ] && [ "$(basename "$f")" != cmocka.pc ] && ln -sf "$f" "$tmp/pc/"
    done
done
PKG_CONFIG_LIBDIR=$tmp/pc pkg-config --exists cmocka && bad "cmocka still visible" || ok
if PKG_CONFIG_LIBDIR=$tmp/pc "$cmake" -S "$root" -B "$tmp/b1" >"$tmp/out" 2>&1 &&
    grep -q 'tests left out: no cmocka' "$tmp/out" && [ ! -e "$tmp/b1/tests" ]; then ok; else
    bad "configure without cmocka: $(grep -m1 -i 'error\|cmocka' "$tmp/out")"
fi
if PKG_CONFIG_LIBDIR=$tmp/pc "$cmake" -S "$root" -B "$tmp/b2" -DTPLAN_TESTS=ON >"$tmp/out" 2>&1; then
    bad "configure with TPLAN_TESTS=ON and no cmocka succeeded"
else
    grep -q "Package 'cmocka'.* not found" "$tmp/out" && ok ||
        bad "TPLAN_TESTS=ON without cmocka: $(grep -m1 -i error "$tmp/out")"
fi
finish
