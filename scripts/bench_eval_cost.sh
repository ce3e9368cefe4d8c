#!/usr/bin/env bash
# Instructions per plan evaluation (issue 38): tests/bench/eval_cost.lua's
# spaces run under callgrind on one thread; a one-configuration run's
# instructions (startup, the Lua state, the model tables) are subtracted
# and the rest divided by the evaluations. Instruction counts do not
# depend on the machine's load, unlike times on a shared machine.
# "untimed": the share of evaluations that stopped after the memory (plans
# that do not fit, once the sweep's top N all fit: TPLAN_EVAL_FIT_FIRST).
# A benchmark that prints figures, not a test.
# Usage: scripts/bench_eval_cost.sh [TPLAN]   (default: build/cli/tplan)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tplan=$(realpath "${1:-$root/build/cli/tplan}")
command -v valgrind >/dev/null || { echo "bench_eval_cost: needs valgrind" >&2; exit 1; }
bench=$root/tests/bench/eval_cost.lua
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# instructions of one run: callgrind's "Collected" total
instr() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
        "$tplan" run "$bench" --threads 1 -- "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
    grep -o 'Collected : [0-9]*' "$tmp/err.txt" | grep -o '[0-9]*$'
}

echo "tplan $("$tplan" --version | cut -d' ' -f2); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); valgrind $(valgrind --version | sed 's/valgrind-//')"
base=$(instr space=one)
printf '%-6s %-9s %8s %10s %7s %8s %14s\n' space walk configs evaluated staged untimed instr/eval
for space in nic pue; do
    for order in reach canonical; do
        total=$(instr space=$space walk=$order)
        read -r _ configs _ evaluated _ staged _ untimed < <(grep '^space ' "$tmp/out.txt")
        awk -v s="$space" -v o="$order" -v c="$configs" -v e="$evaluated" -v st="$staged" \
            -v u="$untimed" -v t="$total" -v b="$base" 'BEGIN {
                printf "%-6s %-9s %8d %10d %6.1f%% %7.1f%% %14.0f\n", s, o, c, e, 100 * st / e,
                       100 * u / e, (t - b) / e }'
    done
done
echo "(startup, a one-configuration run: $base instructions, subtracted)"
