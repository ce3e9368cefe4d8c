-- Issue 33's Mixtral-8x7B sweep on 64 H100s: by time alone 18 of its 20
-- best plans do not fit (rank 1 needed 193.7 GiB where 71.3 GiB is
-- usable). Plans that fit rank first; -- fits_first=false mixes them.
local a = tplan.args(arg, {fits_first = "true"})
local res = tplan.sweep{
  name = "mixtral", model = "mixtral-8x7b", gpu = "h100-sxm", gpus = 64,
  seq = 4096, global_batch = 512, tokens = 1e12, precision = "mixed-bf16",
  axes = {tp = {1, 2, 4, 8}, pp = {1, 2, 4}, ep = {1, 2, 4, 8}, zero = {1, 3},
          micro_batch = {1, 2, 4}},
  rank = {"time_h"}, keep = 20, fits_first = a.fits_first == "true",
}
local top = res:top(1)[1]
print(("top: fits %s, %.1f GiB, tp %d pp %d ep %d zero %d mb %d"):format(
  tostring(top.fits), top.total_bytes / 2 ^ 30, top.tp, top.pp, top.ep,
  top.zero, top.micro_batch))
-- does the first plan stay first across the assumptions' ranges?
local rob = res:robustness()
for _, f in ipairs(rob.flips) do
  print(("flip: %s at %s: tp %d pp %d ep %d first (%+.1f%%)"):format(
    f.field, f.value, f.top.tp, f.top.pp, f.top.ep, 100 * f.delta))
end
