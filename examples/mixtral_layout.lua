-- Which layout for Mixtral-8x7B on 64 H100s? Every combination of TP,
-- PP, EP, ZeRO stage and micro-batch, every plan stored (keep = "all"),
-- so `tplan report` draws, for each axis, the best plan at each of its
-- values (best-by-ep, best-by-tp, ...): "which EP?" at a glance.
--
--   tplan run examples/mixtral_layout.lua --db mixtral.db
--   tplan report mixtral.db -o mixtral.html
local res = tplan.sweep{
  name = "mixtral-layout", model = "mixtral-8x7b", gpu = "h100-sxm", gpus = 64,
  seq = 4096, global_batch = 512, tokens = 1e12, precision = "mixed-bf16",
  axes = {tp = {1, 2, 4, 8}, pp = {1, 2, 4}, ep = {1, 2, 4, 8}, zero = {1, 3},
          micro_batch = {1, 2, 4}},
  rank = {"time_h"}, keep = "all",
}
local fit = 0
for _, p in ipairs(res:top(res:count())) do
  if p.fits then fit = fit + 1 end
end
local best = res:top(1)[1]
print(("%d of %d layouts fit; the fastest: tp %d pp %d ep %d zero %d mb %d, %.0f h, %.1f GiB"):format(
  fit, res:count(), best.tp, best.pp, best.ep, best.zero, best.micro_batch,
  best.time_h, best.total_bytes / 2 ^ 30))
