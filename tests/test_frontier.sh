#!/usr/bin/env bash
# scripts/accuracy_frontier.sh runs and accounts for every row of
# tests/data/frontier_runs.tsv: each row is either predicted (published and
# predicted figures are numbers, a fit verdict) or refused with tplan's
# message; --rows, --recorded, later_flags and `-- FLAGS` reach tplan; a
# row whose input columns disagree with its flags, or with an unknown kind,
# is an error naming the row. The error values themselves are not asserted
# (docs/accuracy.md records them).
# Usage: test_frontier.sh TPLAN SOURCE_DIR/tests
set -u
tplan=$(realpath "$1")
root=$(realpath "$2/..")
script=$root/scripts/accuracy_frontier.sh
data=$root/tests/data/frontier_runs.tsv
export TPLAN=$tplan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { :; }
bad() { echo "FAIL: $*"; fail=1; }

ids=$(grep -v '^#' "$data" | tail -n +2 | cut -f1)
nrows=$(wc -l <<<"$ids")
[ "$nrows" -ge 5 ] && ok || bad "only $nrows rows in $data"

# the report: one line per row, predicted or refused, and the summary
if "$script" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "accuracy_frontier.sh exit $?: $(head -n3 "$tmp/err")"; fi
[ ! -s "$tmp/err" ] && ok || bad "stderr: $(head -n3 "$tmp/err")"
for id in $ids; do
    n=$(awk -v id="$id" '$1 == id' "$tmp/out" | wc -l)
    [ "$n" = 1 ] && ok || bad "$id: $n report lines"
    line=$(awk -v id="$id" '$1 == id' "$tmp/out")
    case $line in
        *refused:*) ok ;;
        *) [[ $line =~ [-+][0-9]+\.[0-9]%\ +(yes|no)$ ]] && ok || bad "$id: unparsed line: $line" ;;
    esac
done
npred=$(grep -c -E '%  (yes|no)$' "$tmp/out")
nref=$(grep -c 'refused:' "$tmp/out")
[ $((npred + nref)) = "$nrows" ] && ok || bad "$npred predicted + $nref refused != $nrows rows"
grep -q -E "^frontier: $npred of $nrows rows predicted \($nref refused\); median \|error\| [0-9.]+%, worst [0-9.]+% \(.+\); [0-9]+ of $npred plans fit$" "$tmp/out" &&
    ok || bad "summary line: $(tail -n1 "$tmp/out")"

# --rows: the predicted rows, five numeric columns, refused rows on stderr
"$script" --rows >"$tmp/rows" 2>"$tmp/rerr" || bad "--rows exit $?"
[ "$(wc -l <"$tmp/rows")" = "$npred" ] && ok || bad "--rows printed $(wc -l <"$tmp/rows") rows, not $npred"
awk -F'\t' 'NF != 5 || $2 + 0 <= 0 || $3 + 0 <= 0 || !($4 <= $3 && $3 <= $5) { exit 1 }' "$tmp/rows" &&
    ok || bad "--rows: a row without five positive figures with the prediction inside its band"
[ "$(grep -c ': refused: ' "$tmp/rerr")" = "$nref" ] && ok || bad "--rows stderr names $(grep -c ': refused: ' "$tmp/rerr") refused rows, not $nref"
# --recorded leaves the (today empty) later_flags out: same rows
"$script" --rows --recorded >"$tmp/rec" 2>/dev/null || bad "--recorded exit $?"

# flags after -- reach every row: --efficiency moves every prediction
"$script" --rows -- --efficiency 0.2 >"$tmp/eff" 2>/dev/null || bad "-- --efficiency exit $?"
[ "$(wc -l <"$tmp/eff")" = "$npred" ] && ok || bad "-- --efficiency: $(wc -l <"$tmp/eff") rows"
paste "$tmp/rows" "$tmp/eff" | awk -F'\t' '$3 == $8 { exit 1 }' && ok || bad "-- --efficiency 0.2 left a prediction unchanged"

# later_flags: appended unless --recorded
first=$(head -n1 "$tmp/rows" | cut -f1)
awk -F'\t' -v OFS='\t' -v id="$first" '$1 == id { $19 = "--efficiency 0.2" } { print }' "$data" >"$tmp/later.tsv"
"$script" --rows "$tmp/later.tsv" >"$tmp/l1" 2>/dev/null || bad "later_flags run exit $?"
"$script" --rows --recorded "$tmp/later.tsv" >"$tmp/l2" 2>/dev/null || bad "later_flags --recorded exit $?"
[ "$(awk -F'\t' -v id="$first" '$1 == id { print $3 }' "$tmp/l1")" != "$(awk -F'\t' -v id="$first" '$1 == id { print $3 }' "$tmp/l2")" ] &&
    ok || bad "later_flags did not reach tplan"
cmp -s "$tmp/l2" "$tmp/rec" && ok || bad "--recorded with later_flags differs from the recorded rows"

# bad rows: one-line errors naming the row and the field, non-zero exit
awk -F'\t' -v OFS='\t' -v id="$first" '$1 == id { $5 = $5 + 1 } { print }' "$data" >"$tmp/bad1.tsv"
if "$script" "$tmp/bad1.tsv" >/dev/null 2>"$tmp/e1"; then bad "a gpus column that disagrees with --gpus passed"; fi
grep -q "^frontier: $first: column gpus is " "$tmp/e1" && [ "$(wc -l <"$tmp/e1")" = 1 ] && ok || bad "bad gpus: $(cat "$tmp/e1")"
awk -F'\t' -v OFS='\t' -v id="$first" '$1 == id { $17 = "speed" } { print }' "$data" >"$tmp/bad2.tsv"
if "$script" "$tmp/bad2.tsv" >/dev/null 2>"$tmp/e2"; then bad "an unknown kind passed"; fi
grep -q "^frontier: $first: unknown kind 'speed'" "$tmp/e2" && ok || bad "unknown kind: $(cat "$tmp/e2")"
awk -F'\t' -v OFS='\t' -v id="$first" '$1 == id { $16 = "n/a" } { print }' "$data" >"$tmp/bad3.tsv"
if "$script" "$tmp/bad3.tsv" >/dev/null 2>"$tmp/e3"; then bad "a published figure that is not a number passed"; fi
grep -q "^frontier: $first: published 'n/a' is not a number" "$tmp/e3" && ok || bad "bad published: $(cat "$tmp/e3")"

[ "$fail" = 0 ] && echo "frontier: all checks passed ($npred predicted, $nref refused)"
exit "$fail"
