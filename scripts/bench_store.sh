#!/usr/bin/env bash
# Writer speed, rows per second:
#  - bench_store: the SQLite and CSV writers alone (the plans evaluated
#    beforehand), 1M rows, RUNS runs each, median and range;
#  - end to end: res:save of a keep = "all" sweep (tests/bench/save_bench.lua,
#    --threads = cores), which re-evaluates every kept plan in full on the
#    sweep's threads before writing it.
# The machine's other load moves single runs by +-20%: read the median.
# Each SQLite run starts after PAUSE seconds (default 3): on this project's
# VMs, page-cache memory a run frees goes back to the host within seconds,
# and writing into such fresh memory is ~4x slower (dd of 460 MB: 1.0 GB/s
# after a pause, 4.0 GB/s right after a delete); back-to-back runs
# alternate between the two. With the pause every run meets the slower
# case, as a first sweep in a session does. PAUSE=0 runs back to back.
# Usage: scripts/bench_store.sh [RUNS] [DIR]   (default 7 runs, files in /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
runs=${1:-7}
dir=${2:-/tmp}
median() {
    sort -n | awk '{a[NR] = $1} END {printf "  median %d rows/s (min %d, max %d, %d runs)\n", a[int((NR + 1) / 2)], a[1], a[NR], NR}'
}
now() { date +%s.%N; }

echo "tplan $(build/cli/tplan --version | cut -d' ' -f2), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1); $dir on $(df -T "$dir" | awk 'NR == 2 {print $2}')"
pause=${PAUSE:-3}
# a row: sweep_id, rank, config_index, pareto, score, key1..4 and the fields
cols=$(($(build/cli/tplan fields --json | grep -c '"name"') + 9))
echo "SQLite writer, 1,000,000 rows of $cols columns, $pause s apart:"
for _ in $(seq "$runs"); do
    sync
    sleep "$pause"
    build/tests/bench_store 1000000 "$dir" sqlite
done | awk '{print $7}' | median
echo "CSV writer, 300,000 rows:"
for _ in $(seq 3); do
    build/tests/bench_store 300000 "$dir" csv
done | awk '{print $7}' | median

out="$dir/tplan_save_bench_$$.db"
echo "End to end, res:save of 393,216 kept plans, --threads $(nproc) (re-evaluation included):"
for _ in $(seq 3); do
    rm -f "$out"
    t0=$(now)
    build/cli/tplan run tests/bench/save_bench.lua --threads "$(nproc)" -- out="$out" save=0 >/dev/null
    t1=$(now)
    rows=$(build/cli/tplan run tests/bench/save_bench.lua --threads "$(nproc)" -- out="$out" save=1 | awk '{print $(NF - 2)}')
    t2=$(now)
    awk -v r="$rows" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {printf "%d\n", r / ((c - b) - (b - a))}'
done | median
rm -f "$out"
