-- A mixture of experts across expert, pipeline, tensor and context
-- parallelism: every (ep, pp, tp, cp) layout that fits, and the Pareto
-- front of cost against time. Expert parallelism splits the experts
-- (and their all-to-all goes across nodes once ep outgrows a node);
-- context parallelism splits each sequence.
--
--   tplan run scripts/moe.lua [-- model=qwen3-30b-a3b tokens=2e12 seq=8192]
local a = tplan.args(arg, {
  model = "mixtral-8x7b", gpu = "h100-sxm", tokens = 1e12, seq = 4096,
  global_batch_tokens = 4194304, precision = "mixed-bf16",
  gpus_list = {16, 32, 64, 128},
  moe_overlap = 0,
})

local res = tplan.sweep{
  name = "moe", model = a.model, gpu = a.gpu, tokens = a.tokens,
  seq = a.seq, precision = a.precision, zero = 1, sp = false,
  global_batch_tokens = a.global_batch_tokens, moe_overlap = a.moe_overlap,
  axes = {gpus = a.gpus_list, ep = {1, 2, 4, 8, 16, 32, 64},
          pp = {1, 2, 4, 8}, tp = {1, 2, 4, 8}, cp = {1, 2, 4},
          recompute = {"none", "full"}, micro_batch = {1, 2, 4}},
  limits = {fits = true},
  rank = {"cost_usd", "time_h"}, keep = 10, pareto = true,
}
local s = res:stats()
print(("%s: %d configurations, %d valid, %d fit; Pareto front (cost vs time):")
      :format(a.model, s.space, s.evaluated, s.passed))
tplan.print_table(res:pareto(), {
  {"gpus", "gpus"}, {"ep", "ep"}, {"pp", "pp"}, {"tp", "tp"}, {"cp", "cp"},
  {"dp", "dp"}, {"recompute", "recompute"}, {"mb", "micro_batch"},
  {"accum", "accum"}, {"GiB", function(p) return p.total_bytes / 2^30 end, "%.1f"},
  {"a2a s", "ep_time_s", "%.3f"}, {"step s", "step_time_s", "%.2f"},
  {"mfu", "mfu", "%.3f"}, {"days", function(p) return p.time_h / 24 end, "%.1f"},
  {"cost $", "cost_usd", "%.0f"},
})

-- The fastest plan that fits at each expert-parallel degree: what EP buys
-- in memory, and what its all-to-all costs in time.
print("\nfastest plan that fits, per expert-parallel degree:")
local rows, experts = {}, tplan.model(a.model).experts
for _, e in ipairs({1, 2, 4, 8, 16, 32, 64}) do
  -- a degree with no valid layout (more ranks than experts) is skipped
  local ok, r = false, nil
  if e <= experts then ok, r = pcall(tplan.sweep, {
    name = "moe_ep" .. e, model = a.model, gpu = a.gpu, tokens = a.tokens,
    seq = a.seq, precision = a.precision, zero = 1, ep = e,
    global_batch_tokens = a.global_batch_tokens, moe_overlap = a.moe_overlap,
    axes = {gpus = a.gpus_list, pp = {1, 2, 4, 8}, tp = {1, 2, 4, 8},
            cp = {1, 2, 4}, recompute = {"none", "full"},
            micro_batch = {1, 2, 4}},
    limits = {fits = true}, rank = {"step_time_s"}, keep = 1,
  }) end
  local best = ok and r:top(1)[1]
  if best then rows[#rows + 1] = best end
end
tplan.print_table(rows, {
  {"ep", "ep"}, {"gpus", "gpus"}, {"pp", "pp"}, {"tp", "tp"}, {"cp", "cp"},
  {"GiB", function(p) return p.total_bytes / 2^30 end, "%.1f"},
  {"a2a s", "ep_time_s", "%.3f"}, {"step s", "step_time_s", "%.2f"},
  {"mfu", "mfu", "%.3f"}, {"cost $", "cost_usd", "%.0f"},
})
