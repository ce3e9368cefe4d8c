#!/usr/bin/env bash
# keep = "fits"/"all" sweeps streamed into tplan run's --db and --csv as
# they walk (db/stream.h): the same rows as a sweep kept in memory (every
# column but the rank, NULL past `ranked`, and the warnings, which leave
# out the remedy search), the best plans ranked, the front flagged, merges
# of streamed shards equal to unstreamed ones, res:save refused, SIGINT
# and a full disk mid-stream. Usage: test_stream.sh TPLAN_BINARY TESTS_DIR
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"
cd "$tmp"
s="$dir/lua/stream.lua"
q() { sqlite3 -csv "$@"; }
# the plan columns but rank and warnings, in a stable order
cols() { q "$1" "SELECT group_concat(name) FROM pragma_table_info('plans') WHERE name NOT IN ('rank', 'warnings')"; }

for keep in all fits; do
    "$tplan" run "$s" --db m-$keep.db --csv m-$keep.csv -- keep=$keep ranked=100000 >m.out 2>m.err
    "$tplan" run "$s" --db s-$keep.db --csv s-$keep.csv -- keep=$keep >s.out 2>s.err
    grep -q "streamed false" m.out && grep -q "streamed true" s.out &&
        grep -q "streaming them into s-$keep.db and s-$keep.csv as it walks; the best 7 carry a rank" s.err && ok ||
        bad "$keep: streamed or not: $(cat m.out s.out s.err)"
    c=$(cols m-$keep.db)
    n=$(q m-$keep.db "SELECT count(*) FROM plans")
    [ "$n" -gt 100 ] && [ "$n" = "$(q s-$keep.db "SELECT count(*) FROM plans")" ] && ok ||
        bad "$keep: row counts $n $(q s-$keep.db "SELECT count(*) FROM plans")"
    # every column but rank and warnings, row for row
    d=$(q m-$keep.db "ATTACH 's-$keep.db' AS s; SELECT count(*) FROM (SELECT $c FROM main.plans EXCEPT SELECT $c FROM s.plans)")
    [ "$d" = 0 ] && ok || bad "$keep: $d rows differ"
    # the best 7 ranked as in memory, the rest NULL; kept plans by rank
    a=$(q m-$keep.db "SELECT group_concat(config_index) FROM (SELECT config_index FROM plans WHERE rank <= 7 ORDER BY rank)")
    b=$(q s-$keep.db "SELECT group_concat(config_index) FROM (SELECT config_index FROM plans WHERE rank IS NOT NULL ORDER BY rank)")
    [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(q s-$keep.db "SELECT max(rank) FROM plans")" = 7 ] && ok ||
        bad "$keep: ranks [$a] [$b]"
    # the front and the sweep row's counts
    [ "$(q m-$keep.db "SELECT group_concat(config_index) FROM (SELECT config_index FROM plans WHERE pareto ORDER BY config_index)")" = \
      "$(q s-$keep.db "SELECT group_concat(config_index) FROM (SELECT config_index FROM plans WHERE pareto ORDER BY config_index)")" ] &&
    [ "$(q m-$keep.db "SELECT visited, evaluated, passed, kept, completed FROM sweeps")" = \
      "$(q s-$keep.db "SELECT visited, evaluated, passed, kept, completed FROM sweeps")" ] && ok ||
        bad "$keep: front or sweep row differ"
    # warnings: the same diagnosis, without "would fit with" remedies
    w=$(q m-$keep.db "ATTACH 's-$keep.db' AS s; SELECT count(*) FROM main.plans a JOIN s.plans b USING (config_index) WHERE b.warnings IS NOT a.warnings AND (b.warnings LIKE '%would fit with%' OR substr(a.warnings, 1, length(b.warnings)) != b.warnings)")
    [ "$w" = 0 ] && ok || bad "$keep: $w warnings are not the in-memory ones less the remedies"
    # CSV: the same rows (less rank and warnings), 7 ranks (keep =
    # "fits": the database's extra rows are front plans that do not fit,
    # which CSV files leave out)
    rm -f csv.db
    sqlite3 csv.db ".import --csv m-$keep.csv m" ".import --csv s-$keep.csv s"
    cc=$(q csv.db "SELECT group_concat('\"' || name || '\"') FROM pragma_table_info('m') WHERE name NOT IN ('rank', 'warnings')")
    kn=$(q m-$keep.db "SELECT count(*) FROM plans WHERE rank IS NOT NULL")
    r=$(q csv.db "SELECT (SELECT count(*) FROM m), (SELECT count(*) FROM s), (SELECT count(*) FROM (SELECT $cc FROM m EXCEPT SELECT $cc FROM s)), (SELECT group_concat(rank) FROM (SELECT rank FROM s WHERE rank != '' ORDER BY CAST(rank AS INTEGER)))")
    [ "$r" = "$kn,$kn,0,\"1,2,3,4,5,6,7\"" ] && ok || bad "$keep: CSV rows differ: [$r] want $kn"
done

# without a front (no pareto): ranks only
"$tplan" run "$s" --db np.db -- pareto=0 >/dev/null 2>err
[ "$(q np.db "SELECT count(*), count(rank), max(rank), sum(pareto) FROM plans")" = "$(q m-all.db "SELECT count(*) FROM plans"),7,7,0" ] && ok ||
    bad "pareto = false: $(cat err) $(q np.db "SELECT count(*), count(rank), max(rank), sum(pareto) FROM plans")"

# the result holds the best `ranked`: res:top works, res:save and res:csv
# would store only those and say so
"$tplan" run "$s" --db x1.db -- what=save >out 2>err
grep -q "^false.*tplan.result:save: sweep 'streamed' streamed its [0-9]* plans into the run's --db/--csv as it walked; the result holds only the best 7 (res:top, res:each, res:pareto())" out &&
    [ ! -e x.db ] && ok || bad "res:save of a streamed sweep: $(cat out err)"
"$tplan" run "$s" --db x2.db -- what=pareto >out 2>err
grep -q "^false.*tplan.result:pareto: sweep 'streamed' streamed its" out && ok || bad "res:pareto{} of a streamed sweep: $(cat out err)"
# a where function that answers otherwise in the second walk: an error,
# the sweep's rows undone
"$tplan" run "$s" --db fl.db --csv fl.csv -- flaky=1000 >out 2>err
rc=$?
[ "$rc" = 1 ] && grep -q "the second walk kept 168 plans, the first 832: a streamed sweep's where and score functions must give the same answer" err &&
    [ "$(q fl.db "SELECT count(*) FROM sweeps")" = 0 ] && [ ! -e fl.csv ] && ok ||
    bad "flaky where: exit $rc $(cat err) $(q fl.db "SELECT count(*) FROM sweeps")"
# without --db or --csv nothing streams: the script has every plan
"$tplan" run "$s" -- what=csv >out 2>err
grep -q "streamed false" out && grep -q "^true" out && [ -s x.csv ] && ok || bad "no outputs: $(cat out err)"
# a bad ranked names the field
"$tplan" run "$s" -- ranked=0 >out 2>err
[ $? = 1 ] && grep -q "ranked" err && ok || bad "ranked=0: $(cat err)"

# shards streamed, merged: the same plans and ranks as unstreamed shards
for k in 0 1; do
    "$tplan" run "$s" --shard $k/2 --db ms$k.db -- ranked=100000 >/dev/null 2>&1
    "$tplan" run "$s" --shard $k/2 --db ss$k.db >/dev/null 2>&1
done
"$tplan" merge mm.db ms0.db ms1.db >/dev/null 2>&1 && "$tplan" merge sm.db ss0.db ss1.db >/dev/null 2>&1 &&
    c=$(cols mm.db) &&
    [ "$(q mm.db "SELECT count(*) FROM plans")" = "$(q m-all.db "SELECT count(*) FROM plans")" ] &&
    [ "$(q mm.db "ATTACH 'sm.db' AS s; SELECT count(*) FROM (SELECT rank, $c FROM main.plans EXCEPT SELECT rank, $c FROM s.plans)")" = 0 ] && ok ||
    bad "merge of streamed shards: $(q mm.db "SELECT count(*) FROM plans") $(q sm.db "SELECT count(*) FROM plans")"

# SIGINT while streaming: the rows so far, the sweep marked interrupted
"$tplan" run "$s" --db int.db -- big=1 >/dev/null 2>int.err &
pid=$!
for _ in $(seq 1 200); do grep -q streaming int.err && break; sleep 0.05; done
sleep 1
kill -INT $pid
wait $pid
rc=$?
r=$(q int.db "SELECT completed, interrupted, kept > 0, kept < 1664000 FROM sweeps")
[ "$rc" = 130 ] && [ "$r" = "0,1,1,1" ] &&
    [ "$(q int.db "SELECT count(*) = (SELECT kept FROM sweeps) FROM plans")" = 1 ] && ok ||
    bad "SIGINT mid-stream: exit $rc [$r] $(cat int.err)"

# a sweep that writes every plan says how long it may take, with writing
"$tplan" run "$dir/bench/keep_all_bench.lua" --db est.db -- ranked=10 >/dev/null 2>est.err &
pid=$!
for _ in $(seq 1 200); do grep -q "configurations" est.err && break; sleep 0.05; done
kill -INT $pid 2>/dev/null
wait $pid
grep -q "^tplan: sweep 'keep_all_bench': 9.83e+06 configurations, about 61 s if every one is kept and written$" est.err && ok ||
    bad "the estimate with writing: $(cat est.err)"

# a full disk mid-stream: the database and the CSV as they were
fault="$(dirname "$tplan")/../tests/libfail_write.so"
if [ -f "$fault" ] && ! ldd "$tplan" | grep -q libasan; then
    cp m-all.db ff.db
    echo old >ff.csv
    TPLAN_FAULT_FILE=/ff.db TPLAN_FAULT_FAIL_AT=300 LD_PRELOAD="$fault" \
        "$tplan" run "$s" --db ff.db --csv ff.csv -- big=1 >/dev/null 2>err
    rc=$?
    [ "$rc" = 1 ] && grep -q -- "--db: cannot write a plan to ff.db: database or disk is full" err &&
        [ "$(q ff.db "PRAGMA integrity_check; SELECT count(*) FROM sweeps")" = "ok
1" ] && [ "$(cat ff.csv)" = old ] && ! ls ./*.tmp* >/dev/null 2>&1 && ok ||
        bad "ENOSPC mid-stream: exit $rc $(cat err) $(q ff.db 'SELECT count(*) FROM sweeps')"
fi
# a file size limit while streaming CSV: said under --csv, the old file kept
echo old >big.csv
(ulimit -f 20000; trap '' XFSZ; "$tplan" run "$s" --csv big.csv -- big=1 >/dev/null 2>err)
rc=$?
[ "$rc" = 1 ] && grep -q -- "--csv: cannot write big.csv: File too large" err && [ "$(cat big.csv)" = old ] &&
    [ -z "$(find . -name '*.tmp*' -o -name '.big.csv*')" ] && ok ||
    bad "EFBIG mid-stream: exit $rc $(cat err) $(ls -a)"
finish
