-- Issue 38 item 2: the walk order changes what a sweep costs, never what
-- it finds. A 110,592-configuration space whose index order walks the
-- caching allocator's share (alloc_frac, which reaches the whole plan)
-- inside the run-class axes (pue, price) and the NIC speed
-- (communication only): test_lua.sh runs it with walk=canonical (the
-- index's order) and walk=reach (by reach class), on 1 and 2 threads and
-- as two shards, and compares the lines printed: every kept plan's index
-- and figures in rank order, ranks full of ties (by GPU count alone: the
-- index breaks them), the top 100 by cost and time, and the Pareto front.
local a = tplan.args(arg, {walk = "reach"})
local axes = {gpus = {8, 16, 32, 64}, tp = {1, 2, 4, 8}, pp = {1, 2, 4},
              zero = {0, 1, 2, 3}, precision = {"mixed-bf16", "fp8"},
              recompute = {"none", "selective", "full"}, micro_batch = {1, 2, 4, 8},
              pue = {1.1, 1.2, 1.3}, alloc_frac = {0.02, 0.05}, price = {2, 3}, nic_gbps = {200, 400}}
local base = {model = "llama3-8b", gpu = "h100-sxm", global_batch_tokens = 4194304,
              tokens = 1.5e13, seq = 4096, axes = axes, walk = a.walk}
local function sweep(extra)
  local spec = {}
  for k, v in pairs(base) do spec[k] = v end
  for k, v in pairs(extra) do spec[k] = v end
  return tplan.sweep(spec)
end
local function line(tag, p)
  print(("%s %d %s %.17g %.17g %.17g %d"):format(tag, p.index, tostring(p.fits),
        p.time_h, p.cost_usd, p.total_bytes, p.micro_batch))
end
local ties = sweep{name = "ties", rank = {"gpus"}, keep = "all"}
for _, p in ipairs(ties:top(ties:count())) do line("all", p) end
local best = sweep{name = "best", rank = {"cost_usd", "time_h"}, keep = 100, pareto = true}
for _, p in ipairs(best:top(100)) do line("top", p) end
for _, p in ipairs(best:pareto()) do line("front", p) end
local s = ties:stats()
io.stderr:write(("walk %s: space %d evaluated %d staged %d\n"):format(
  a.walk, s.space, s.evaluated, s.staged))
