-- A sweep with a Pareto front for the result-database tests: its kept
-- plans, its front and its ranking must survive --db, sharding and merge.
-- limit=none keeps plans that do not fit too (they rank after those that do)
local a = tplan.args(arg, {keep = "40", limit = "fits"})
tplan.sweep{
  name = "db", model = "llama2-7b", gpu = "a100-80g", tokens = 1e11,
  global_batch_tokens = 2 ^ 21,
  axes = {gpus = {8, 16, 32}, tp = {1, 2, 4}, pp = {1, 2}, zero = {1, 3},
          recompute = {"none", "full"}, seq = {2048, 4096}, micro_batch = {1, 2, 4, "max"}},
  limits = {fits = a.limit == "fits"},
  rank = {"cost_usd", "time_h"}, keep = tonumber(a.keep) or a.keep, pareto = true,
}
