#!/usr/bin/env bash
# keep = "all" at storage speed (issue 38): what each output path costs to
# write a keep = "all" sweep (tests/bench/keep_all_bench.lua), against what
# SQLite itself costs to copy the same rows into a new file with the same
# schema (INSERT ... SELECT from the database --db wrote). Three measures:
#   instructions  callgrind, all threads' instructions counted (the sqlite3
#                 CLI's copy the same way), on a smaller sample; the walk
#                 alone's instructions subtracted (for the copy: the same
#                 sqlite3 run copying no row). Independent of the load.
#   CPU time      user + sys from /usr/bin/time, the walk alone's
#                 subtracted; the median of RUNS runs.
#   wall time     the same runs' elapsed time, the walk alone's
#                 subtracted; the median of RUNS runs.
# A path's rate is rows / (its cost - the walk's), so the ratios compare
# the work of writing. The paths run interleaved (walk, --db, --csv, ...,
# the copy, then again), so a change of load hits all of them alike; the
# load is printed before and after. The streamed paths (a sweep keeping
# more than `ranked`, here 1000) walk the space twice, and only one walk
# is subtracted. A benchmark, not a test: it prints figures.
#
# Usage: scripts/bench_keep_all.sh [RUNS] [THREADS] [DIR]
#   (default 5 runs, threads = cores, files in /tmp)
#   BENCH_PUE=N      the timed sample: -- pue=N (default 1: 393,216 plans,
#                    59% of them do not fit)
#   BENCH_CG=0       no callgrind pass; BENCH_CG_ARGS: its sample (default
#                    "pue=1 prices=1 overlaps=2": 49,152 plans)
#   BENCH_CG_KEEP=D  keep the callgrind profiles in D (callgrind_annotate)
#   TPLAN=PATH       the binary (default build/cli/tplan)
# scripts/bench_keep_all.sh rss PUE... : peak memory of a keep = "all"
#   sweep streamed to --db at each -- pue=PUE (1: 393,216 plans, 3: 1.18M,
#   25: 9.83M, 255: 100.3M and a ~100 GB file; the database is deleted
#   after each run). BENCH_RANKED=N: -- ranked=N (default the script's,
#   1,000,000: a sweep keeping more streams, holding the best N in memory).
set -euo pipefail
cd "$(dirname "$0")/.."
tplan=${TPLAN:-build/cli/tplan}
script=tests/bench/keep_all_bench.lua

cpu() { grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

if [ "${1:-}" = rss ]; then
    shift
    dir=${BENCH_DIR:-/tmp}
    out="$dir/tplan_keep_all_rss_$$"
    trap 'rm -f "$out".*' EXIT
    echo "tplan $("$tplan" --version | cut -d' ' -f2), $(nproc) cores: $(cpu); --threads $(nproc); $dir on $(df -T "$dir" | awk 'NR == 2 {print $2}'); ranked=${BENCH_RANKED:-1000000}"
    for pue in "$@"; do
        rm -f "$out.db"
        /usr/bin/time -f "%e %U %S %M" -o "$out.time" "$tplan" run "$script" \
            --threads "$(nproc)" --db "$out.db" -- pue="$pue" \
            ${BENCH_RANKED:+ranked=$BENCH_RANKED} \
            >"$out.txt" 2>"$out.err" || { cat "$out.err" >&2; exit 1; }
        read -r wall user sys kb <"$out.time"
        rows=$(sqlite3 "$out.db" 'SELECT count(*) FROM plans')
        printf 'pue=%-4s %11d rows  %8.1f s wall  %8.1f s CPU  %7.0f rows/s  peak %d MB  %d MB file  load %s\n' \
            "$pue" "$rows" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" \
            "$(awk -v r="$rows" -v w="$wall" 'BEGIN {print r / w}')" $((kb / 1024)) \
            $(($(stat -c %s "$out.db") / 1048576)) "$(load)"
        rm -f "$out.db"
    done
    exit 0
fi

runs=${1:-5}
threads=${2:-$(nproc)}
dir=${3:-/tmp}
pue=${BENCH_PUE:-1}
cg_args=${BENCH_CG_ARGS:-pue=1 prices=1 overlaps=2}
out="$dir/tplan_keep_all_$$"
trap 'rm -f "$out".*' EXIT

echo "tplan $("$tplan" --version | cut -d' ' -f2), $(nproc) cores: $(cpu); --threads $threads; SQLite $(sqlite3 --version | cut -d' ' -f1); $dir on $(df -T "$dir" | awk 'NR == 2 {print $2}'); load at start $(load)"

# The paths: name, then tplan run's arguments (after the script) with
# ARGS standing for the sample's own (-- pue=... or the callgrind one's).
names=(walk db csv save rcsv sdb scsv)
path_args() { # name sample-args...
    local name=$1; shift
    case $name in
    walk) echo "--threads $threads -- $* out=none" ;;
    db) echo "--threads $threads --db $out.db -- $* out=db" ;;
    csv) echo "--threads $threads --csv $out.csv -- $* out=csv" ;;
    save) echo "--threads $threads -- $* out=save path=$out.db" ;;
    rcsv) echo "--threads $threads -- $* out=rcsv path=$out.csv" ;;
    sdb) echo "--threads $threads --db $out.db -- $* out=db ranked=1000" ;;
    scsv) echo "--threads $threads --csv $out.csv -- $* out=csv ranked=1000" ;;
    esac
}

# SQLite's copy: a new file with the --db file's schema, then INSERT ...
# SELECT of all its rows (base: the same run copying none). Into an empty
# table of the same columns SQLite copies each row's record as it is
# (its "transfer optimization", sqlite3 src/insert.c xferOptimization),
# building none; `WHERE 1` turns that off (it applies to a SELECT without
# WHERE only), so "rebuilt" decodes each row and builds its record again
# as an INSERT of new values must.
copy_sql() { # source-db sql-file [where]
    { sqlite3 "$1" .schema
      echo "ATTACH '$1' AS o; INSERT INTO plans SELECT * FROM o.plans${3:-};"; } >"$2"
}

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# ---- wall and CPU time, interleaved ------------------------------------
# shellcheck disable=SC2046 # the arguments are words
"$tplan" run "$script" $(path_args db pue="$pue") >/dev/null 2>&1
rows=$(sqlite3 "$out.db" 'SELECT count(*) FROM plans')
unfit=$(sqlite3 "$out.db" 'SELECT count(*) FROM plans WHERE fits = 0')
mv "$out.db" "$out.src"
copy_sql "$out.src" "$out.sql"
copy_sql "$out.src" "$out.sqlr" " WHERE 1"
declare -A walls cpus rss
for _ in $(seq "$runs"); do
    for name in "${names[@]}" copy rebuilt; do
        rm -f "$out.db" "$out.csv" "$out.copy"
        if [ "$name" = copy ] || [ "$name" = rebuilt ]; then
            sql=$out.sql
            [ "$name" = copy ] || sql=$out.sqlr
            /usr/bin/time -f "%e %U %S %M" -o "$out.time" \
                sqlite3 "$out.copy" <"$sql" >/dev/null 2>"$out.err"
        else
            # shellcheck disable=SC2046 # the arguments are words
            /usr/bin/time -f "%e %U %S %M" -o "$out.time" \
                "$tplan" run "$script" $(path_args "$name" pue="$pue") \
                >/dev/null 2>"$out.err"
        fi || { cat "$out.err" >&2; exit 1; }
        read -r w u s kb <"$out.time"
        walls[$name]+="$w "
        cpus[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') "
        [ "${rss[$name]:-0}" -ge "$kb" ] || rss[$name]=$kb
    done
done
declare -A wall cput
for name in "${names[@]}" copy rebuilt; do
    wall[$name]=$(tr ' ' '\n' <<<"${walls[$name]}" | grep . | median)
    cput[$name]=$(tr ' ' '\n' <<<"${cpus[$name]}" | grep . | median)
done

# ---- instructions (callgrind), a smaller sample ------------------------
declare -A ins
if [ "${BENCH_CG:-1}" != 0 ]; then
    command -v valgrind >/dev/null || { echo "bench_keep_all: needs valgrind (or BENCH_CG=0)" >&2; exit 1; }
    cg() { # name command...
        local name=$1; shift
        valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$@" \
            >/dev/null 2>"$out.err" </dev/null ||
            { cat "$out.err" >&2; exit 1; }
        ins[$name]=$(grep -o 'Collected : [0-9]*' "$out.err" | grep -o '[0-9]*$')
        [ -z "${BENCH_CG_KEEP:-}" ] || cp "$out.cg" "$BENCH_CG_KEEP/callgrind.$name"
    }
    for name in "${names[@]}"; do
        rm -f "$out.db" "$out.csv"
        # shellcheck disable=SC2046,SC2086
        cg "$name" "$tplan" run "$script" $(path_args "$name" $cg_args)
    done
    # shellcheck disable=SC2046,SC2086
    "$tplan" run "$script" $(path_args db $cg_args) >/dev/null 2>&1
    cg_rows=$(sqlite3 "$out.db" 'SELECT count(*) FROM plans')
    cg_unfit=$(sqlite3 "$out.db" 'SELECT count(*) FROM plans WHERE fits = 0')
    mv "$out.db" "$out.src"
    copy_sql "$out.src" "$out.sql"
    copy_sql "$out.src" "$out.sql0" " WHERE 0"
    copy_sql "$out.src" "$out.sqlr" " WHERE 1"
    rm -f "$out.copy"
    cg copy sqlite3 -init "$out.sql" "$out.copy" .quit
    rm -f "$out.copy"
    cg rebuilt sqlite3 -init "$out.sqlr" "$out.copy" .quit
    rm -f "$out.copy"
    cg copy0 sqlite3 -init "$out.sql0" "$out.copy" .quit
fi

echo "load at end $(load)"
echo "time: $rows plans ($unfit do not fit), -- pue=$pue, median of $runs interleaved runs; walk alone ${wall[walk]} s wall, ${cput[walk]} s CPU"
[ -z "${ins[walk]:-}" ] ||
    echo "instructions: $cg_rows plans ($cg_unfit do not fit), -- $cg_args, callgrind (valgrind $(valgrind --version | sed 's/valgrind-//')); walk alone ${ins[walk]}, a copy of no row ${ins[copy0]}"
printf '  %-15s %12s %7s %7s %7s %10s %7s %7s %7s %11s %7s %7s %7s %7s\n' \
    path instr/row /--db /copy /rebuilt 'CPU rows/s' /--db /copy /rebuilt \
    'wall rows/s' /--db /copy /rebuilt peak
all=("${names[@]}" copy rebuilt)
awk -v rows="$rows" -v cgrows="${cg_rows:-0}" -v names="${all[*]}" \
    -v W="$(for n in "${all[@]}"; do printf '%s ' "${wall[$n]}"; done)" \
    -v C="$(for n in "${all[@]}"; do printf '%s ' "${cput[$n]}"; done)" \
    -v I="$(for n in "${all[@]}"; do printf '%s ' "${ins[$n]:-0}"; done)" \
    -v M="$(for n in "${all[@]}"; do printf '%s ' "${rss[$n]}"; done)" \
    -v copy0="${ins[copy0]:-0}" \
    -v labels="|--db|--csv|res:save|res:csv|--db streamed|--csv streamed|SQLite copy|SQLite rebuilt" 'BEGIN {
    n = split(names, nm, " "); split(W, w, " "); split(C, c, " ")
    split(I, ins, " "); split(M, m, " "); split(labels, lb, "|")
    # index: 1 walk, 2 db, ..., n-1 copy, n rebuilt (their own runs:
    # the walk is not subtracted from them, a copy of no row is)
    for (i = 2; i <= n; i++) {
        own = i >= n - 1
        dw[i] = own ? w[i] : w[i] - w[1]
        dc[i] = own ? c[i] : c[i] - c[1]
        di[i] = own ? ins[i] - copy0 : ins[i] - ins[1]
    }
    for (i = 2; i <= n; i++) {
        if (cgrows > 0)
            ic = sprintf("%12.0f %7.2f %7.2f %7.2f", di[i] / cgrows,
                         di[2] / di[i], di[n - 1] / di[i], di[n] / di[i])
        else
            ic = sprintf("%12s %7s %7s %7s", "-", "-", "-", "-")
        printf "  %-15s %s %10.0f %7.2f %7.2f %7.2f %11.0f %7.2f %7.2f %7.2f %4d MB\n",
            lb[i], ic, rows / dc[i], dc[2] / dc[i], dc[n - 1] / dc[i],
            dc[n] / dc[i], rows / dw[i], dw[2] / dw[i], dw[n - 1] / dw[i],
            dw[n] / dw[i], m[i] / 1024
    }
}'
echo "(rates: rows over the path's cost less the walk's; a ratio is the path's rate over that of --db, SQLite's copy, SQLite's rebuilding copy: above 1 is faster; instructions and CPU time count all threads)"
