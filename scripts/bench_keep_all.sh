#!/usr/bin/env bash
# keep = "all" at storage speed (issue 38): the rate at which each output
# path writes a 393,216-plan sweep (tests/bench/keep_all_bench.lua at one PUE,
# -- pue=1: 59% of the plans do not fit), against the rate at which SQLite itself copies
# the same rows into a new file with the same schema (INSERT ... SELECT
# from the database --db wrote). A path's rate is rows / (its wall time -
# the walk's alone), the median of RUNS runs; peak RSS from /usr/bin/time.
# The streamed paths (a sweep keeping more than `ranked`) are measured too,
# with ranked = 1000. A benchmark, not a test: it prints figures.
# Usage: scripts/bench_keep_all.sh [RUNS] [THREADS] [DIR]
#   (default 5 runs, threads = cores, files in /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
threads=${2:-$(nproc)}
dir=${3:-/tmp}
tplan=${TPLAN:-build/cli/tplan}
script=tests/bench/keep_all_bench.lua
out="$dir/tplan_keep_all_$$"
trap 'rm -f "$out".*' EXIT

echo "tplan $("$tplan" --version | cut -d' ' -f2), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); --threads $threads; SQLite $(sqlite3 --version | cut -d' ' -f1); $dir on $(df -T "$dir" | awk 'NR == 2 {print $2}'); load $(cut -d' ' -f1-3 /proc/loadavg)"

# wall seconds and peak KB of one run: "S KB"
timed() {
    /usr/bin/time -f "%e %M" -o "$out.time" "$@" >/dev/null 2>"$out.err" ||
        { cat "$out.err" >&2; exit 1; }
    cat "$out.time"
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# name, then the command's arguments after the script
declare -A wall rss
measure() {
    local name=$1; shift
    local t
    : >"$out.walls"
    : >"$out.rss"
    for _ in $(seq "$runs"); do
        rm -f "$out.db" "$out.csv"
        t=$(timed "$@")
        echo "${t% *}" >>"$out.walls"
        echo "${t#* }" >>"$out.rss"
    done
    wall[$name]=$(median <"$out.walls")
    rss[$name]=$(sort -n "$out.rss" | tail -1)
}

measure walk "$tplan" run "$script" --threads "$threads" -- pue=1 out=none
measure db "$tplan" run "$script" --threads "$threads" --db "$out.db" -- pue=1 out=db
rows=$(sqlite3 "$out.db" 'SELECT count(*) FROM plans')
unfit=$(sqlite3 "$out.db" 'SELECT count(*) FROM plans WHERE fits = 0')
measure csv "$tplan" run "$script" --threads "$threads" --csv "$out.csv" -- pue=1 out=csv
measure save "$tplan" run "$script" --threads "$threads" -- pue=1 out=save path="$out.db"
measure rcsv "$tplan" run "$script" --threads "$threads" -- pue=1 out=rcsv path="$out.csv"
measure sdb "$tplan" run "$script" --threads "$threads" --db "$out.db" -- pue=1 out=db ranked=1000
measure scsv "$tplan" run "$script" --threads "$threads" --csv "$out.csv" -- pue=1 out=csv ranked=1000

# SQLite's own copy of the same rows into a new file of the same schema
"$tplan" run "$script" --threads "$threads" --db "$out.db" -- pue=1 out=db >/dev/null 2>&1
sqlite3 "$out.db" .schema >"$out.sql"
: >"$out.walls"
for _ in $(seq "$runs"); do
    rm -f "$out.copy"
    sqlite3 "$out.copy" <"$out.sql"
    t0=$(date +%s.%N)
    sqlite3 "$out.copy" "ATTACH '$out.db' AS o; INSERT INTO plans SELECT * FROM o.plans;"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}' >>"$out.walls"
done
copy=$(median <"$out.walls")

echo "$rows plans ($unfit do not fit), median of $runs runs; walk alone ${wall[walk]} s"
awk -v rows="$rows" -v walk="${wall[walk]}" -v copy="$copy" \
    -v db="${wall[db]}" -v csv="${wall[csv]}" -v save="${wall[save]}" \
    -v rcsv="${wall[rcsv]}" -v sdb="${wall[sdb]}" -v scsv="${wall[scsv]}" \
    -v rdb="${rss[db]}" -v rc="${rss[csv]}" -v rs="${rss[save]}" \
    -v rr="${rss[rcsv]}" -v rsd="${rss[sdb]}" -v rsc="${rss[scsv]}" 'BEGIN {
    sq = rows / copy
    d = rows / (db - walk)
    printf "  %-30s %8.2f s %9.0f rows/s\n", "SQLite copy (INSERT ... SELECT)", copy, sq
    n = split("--db|--csv|res:save|res:csv|--db streamed|--csv streamed", names, "|")
    split(db " " csv " " save " " rcsv " " sdb " " scsv, w, " ")
    split(rdb " " rc " " rs " " rr " " rsd " " rsc, m, " ")
    for (i = 1; i <= n; i++) {
        r = rows / (w[i] - walk)
        printf "  %-30s %8.2f s %9.0f rows/s  %.2fx --db  %.2fx SQLite  peak %d MB\n",
            names[i], w[i] - walk, r, r / d, r / sq, m[i] / 1024
    }
}'
