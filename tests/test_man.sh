#!/usr/bin/env bash
# The man page docs/tplan.1 against the program: its plan-field entries
# are what scripts/gen_man.sh writes from `tplan fields --json`, every
# calc flag of the field table, every command of `tplan --help` and every
# option each command's --help names are in it, and groff renders it
# without a warning. Usage: test_man.sh TPLAN_BINARY TESTS_DIR
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"
root=$(dirname "$dir")
page=$root/docs/tplan.1
command -v jq >/dev/null || { bad "jq is not installed (scripts/setup.sh --test)"; finish; exit 1; }

# roff spells every '-' of an option as '\-'
escaped() { printf '%s' "$1" | sed 's/-/\\-/g'; }
# in_page FLAG: the page names FLAG, not only a longer flag it begins
in_page() {
    grep -qE -- "$(escaped "$1" | sed 's/\\/\\\\/g')"'($|[^a-z0-9\\]|\\[^-])' "$page"
}

# the generated entries are current
if "$root/scripts/gen_man.sh" --check "$tplan" 2>"$tmp/gen"; then ok; else
    bad "docs/tplan.1 is stale, run scripts/gen_man.sh: $(grep -m1 '^[-+][^-+]' "$tmp/gen")"
fi

# every calc flag of the field table
n=0
while read -r flag; do
    n=$((n + 1))
    if in_page "$flag"; then ok; else bad "docs/tplan.1 lacks $flag (tplan fields --json)"; fi
done < <("$tplan" fields --json | jq -r '.[] | select(.input and .flag != null) | .flag')
[ "$n" -gt 50 ] && ok || bad "tplan fields --json listed $n flags, want more than 50"

# every command in the SYNOPSIS, with every option its --help names
cmds=$("$tplan" --help | awk '/^commands:/ { on = 1; next }
                              on && /^  [a-z]/ { print $1 }
                              on && /^$/ { exit }')
[ "$(wc -w <<<"$cmds")" -ge 10 ] && ok || bad "tplan --help listed only: $cmds"
for c in $cmds; do
    if grep -qxF ".SY \"tplan $c\"" "$page"; then ok; else
        bad "docs/tplan.1: no SYNOPSIS line for tplan $c"
    fi
    "$tplan" "$c" --help >"$tmp/help" 2>&1 || bad "tplan $c --help failed"
    for opt in $(grep -E '^(usage:|[[:space:]])' "$tmp/help" |
                     tr '][(){}|,/.;:`"' ' ' | tr -s ' \t' '\n' |
                     grep -E '^(--[a-z0-9][a-z0-9-]*|-[a-zA-Z])$' | sort -u); do
        if in_page "$opt"; then ok; else bad "docs/tplan.1 lacks tplan $c $opt"; fi
    done
done

# the test above can fail: a flag the page does not have
in_page --no-such-flag && bad "in_page found --no-such-flag" || ok
in_page --lr-rul && bad "in_page took --lr-rule for --lr-rul" || ok

# the sections man(7) asks for, and a clean render
for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
    if grep -qE "^\.SH \"?$s\"?\$" "$page"; then ok; else bad "docs/tplan.1 has no $s section"; fi
done
if command -v groff >/dev/null; then
    LC_ALL=C.UTF-8 groff -man -Tutf8 -ww "$page" >"$tmp/out" 2>"$tmp/err"
    [ -s "$tmp/err" ] && bad "groff warns: $(head -n1 "$tmp/err")" || ok
    grep -q 'tplan - plan neural-network training runs' "$tmp/out" && ok ||
        bad "groff output lacks the NAME line"
else
    echo "SKIP: groff is not installed (scripts/setup.sh --test installs man-db)"
    finish
    exit 77
fi
finish
