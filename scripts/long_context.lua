-- Long context: why context parallelism is needed. Llama 3.1 405B's last
-- pre-training phase runs at 128K tokens (Llama 3 paper, section 3.4.2;
-- its Table 4 runs 16,384 H100s at tp 8, cp 16, pp 16, dp 8). For each
-- context-parallel degree the best plan that fits, if any.
--
--   tplan run scripts/long_context.lua [-- model=llama3.1-70b seq=65536]
local a = tplan.args(arg, {
  model = "llama3.1-405b", gpu = "h100-sxm", gpus = 16384, seq = 131072,
  global_batch_tokens = 16777216, tokens = 8e11,
  cp_list = {1, 2, 4, 8, 16, 32},
})

print(("%s at %d tokens on %d x %s (megatron profile, tp 8, sp, pp 16):")
      :format(a.model, a.seq, a.gpus, a.gpu))
for _, cp in ipairs(a.cp_list) do
  local res = tplan.sweep{
    name = "cp" .. cp, model = a.model, gpu = a.gpu, gpus = a.gpus,
    seq = a.seq, cp = cp, tp = 8, sp = true, pp = 16, zero = 1,
    profile = "megatron", tokens = a.tokens,
    global_batch_tokens = a.global_batch_tokens,
    axes = {recompute = {"none", "selective", "full"}, micro_batch = {1},
            vpp = {1, 2}},
    limits = {fits = true}, rank = {"time_h"}, keep = 1,
  }
  local best = res:top(1)[1]
  local fit = res:stats().evaluated
  if best and best.fits then
    print(("  cp %-3d fits: %s recompute, %.1f GiB per GPU, %.1f s per step, "
           .. "MFU %.3f, %.0f GPU-hours"):format(cp, best.recompute,
           best.total_bytes / 2^30, best.step_time_s, best.mfu, best.gpu_hours))
  elseif fit > 0 then
    -- the smallest footprint, to say by how much it misses
    local low = tplan.sweep{
      name = "cp" .. cp .. "min", model = a.model, gpu = a.gpu, gpus = a.gpus,
      seq = a.seq, cp = cp, tp = 8, sp = true, pp = 16, zero = 1,
      profile = "megatron", recompute = "full", micro_batch = 1,
      global_batch_tokens = a.global_batch_tokens, rank = {"total_bytes"},
      keep = 1,
    }:top(1)[1]
    print(("  cp %-3d does not fit: %.1f GiB per GPU at best (full "
           .. "recompute), %.1f usable"):format(cp, low.total_bytes / 2^30,
           low.usable_bytes / 2^30))
  else
    print(("  cp %-3d no valid layout"):format(cp))
  end
end
