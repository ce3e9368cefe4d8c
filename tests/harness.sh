# Shared by the shell test scripts: source it with the binary and the tests
# directory as $1 and $2. Sets tplan, dir (absolute) and tmp (removed at
# exit); ok/bad count checks; finish prints the tally and fails on any bad.
tplan=$(realpath "$1")
dir=$(realpath "$2")
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL: %s\n' "$*"; }
finish() {
    printf '%d passed, %d failed\n' "$pass" "$fail"
    [ "$fail" = 0 ]
}

# expect_error STATUS "FIRST STDERR LINE" ARGS...
expect_error() {
    local want_rc=$1 want_err=$2
    shift 2
    "$tplan" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" != "$want_rc" ]; then
        bad "tplan $* -> exit $rc, want $want_rc"
    elif [ "$(head -n1 "$tmp/err")" != "$want_err" ]; then
        bad "tplan $* -> stderr '$(head -n1 "$tmp/err")', want '$want_err'"
    elif [ "$lines" != 1 ]; then
        bad "tplan $* -> $lines stderr lines, want 1"
    elif [ -s "$tmp/out" ]; then
        bad "tplan $* -> wrote to stdout on error"
    else
        ok
    fi
}

# jq_is "WHAT" FILTER ARGS...: tplan ARGS --json must satisfy the jq filter
jq_is() {
    local what=$1 filter=$2
    shift 2
    if "$tplan" "$@" --json 2>/dev/null | jq -e "$filter" >/dev/null; then ok; else bad "$what"; fi
}
