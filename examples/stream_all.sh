#!/usr/bin/env bash
# Keep every plan of a sweep (keep = "all") and let `tplan run --db`
# stream them into the result database as the sweep walks: memory stays
# bounded however many plans there are (docs/lua-api.md, `ranked`). The
# best `ranked` plans carry their rank; the rest are stored unranked, and
# SQL orders them by the stored ranking keys (key1..key4, smaller first,
# then config_index: the sweep's own order).
set -euo pipefail
tplan=${TPLAN:-$(dirname "$0")/../build/cli/tplan}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/every_plan.lua" <<'LUA'
tplan.sweep{
  name = "every-plan", model = "llama3-8b", gpu = "h100-sxm", tokens = 1e12,
  axes = {gpus = {8, 16, 32, 64}, zero = {0, 1, 2, 3}, tp = {1, 2, 4, 8},
          seq = {2048, 4096, 8192}, micro_batch = {1, 2, 4, 8},
          recompute = {"none", "selective", "full"}, price = {2, 2.5, 3, 3.5, 4}},
  keep = "all", ranked = 1000, rank = {"cost_usd"},
}
LUA
"$tplan" run "$dir/every_plan.lua" --db "$dir/plans.db"
echo "== every plan stored; the best 1000 ranked =="
"$tplan" query "$dir/plans.db" \
    "SELECT count(*) AS plans, count(rank) AS ranked, sum(fits) AS fit FROM plans"
echo "== the cheapest plans that fit, in the sweep's order =="
"$tplan" query "$dir/plans.db" \
    "SELECT gpus, tp, zero, seq, micro_batch AS mb, recompute, price_usd_per_h AS price, round(cost_usd) AS cost_usd
     FROM plans WHERE fits ORDER BY key1, config_index LIMIT 5"
