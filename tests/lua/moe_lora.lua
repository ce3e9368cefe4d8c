-- Issue 37's new axes swept (run by tests/test_lua.sh, so in CI): LoRA
-- targets on a mixture of experts, DoRA, a 4-bit base and expert
-- parallelism on Mixtral-8x7B, and DeepSpeed's pinned-buffer allowance
-- (host_buffer_factor) on a 7B ZeRO-3 offload. Each plan is checked
-- against counts worked by hand from the config (tests/test_finetune.c
-- has the sums) or against its neighbour on the axis.
local n = 0
local function check(cond, what)
  n = n + 1
  if not cond then error("check failed: " .. what, 2) end
end

local res = tplan.sweep{
  name = "moe_lora", model = "mixtral-8x7b", gpu = "h100-sxm", gpus = 2,
  seq = 512, micro_batch = 1, finetune = true, lora_rank = 16,
  recompute = "full",
  axes = {lora_targets = {"attn", "router", "experts", "all-linear"},
          dora = {false, true}, base_precision = {"auto", "nf4"},
          ep = {1, 2}},
  rank = {"total_bytes"}, keep = "all",
}
local plans = res:top(1000)
check(#plans == 4 * 2 * 2 * 2, "every combination evaluates: " .. #plans)
local by = {}
local function key(p)
  return table.concat({p.lora_targets, tostring(p.dora), p.base_precision,
                       p.ep}, "/")
end
for _, p in ipairs(plans) do by[key(p)] = p end
local function plan(t, d, b, e)
  return assert(by[table.concat({t, tostring(d), b, e}, "/")],
                "no plan " .. t)
end

-- PEFT's counts (q,k,v,o exactly 13,631,488; all-linear 242,225,152 with
-- the router's gate and every expert's w1, w2, w3)
check(plan("attn", false, "auto", 1).trainable_params == 13631488,
      "q,k,v,o: PEFT's 13,631,488")
check(plan("all-linear", false, "auto", 1).trainable_params == 242225152,
      "all-linear: 242,225,152")
check(plan("router", false, "auto", 1).trainable_params == 32 * 16 * 4104,
      "router: 32 x 16 x (4096 + 8)")
-- DoRA adds one magnitude per output feature: q 4096, k 1024, v 1024, o
-- 4096 a layer
check(plan("attn", true, "auto", 1).trainable_params ==
      13631488 + 32 * (4096 + 1024 + 1024 + 4096), "DoRA's magnitudes")
for _, t in ipairs({"attn", "router", "experts", "all-linear"}) do
  for _, d in ipairs({false, true}) do
    -- a 4-bit base and expert parallelism each lower the weights a GPU
    -- holds, and the trainable count does not depend on either
    local a, q = plan(t, d, "auto", 1), plan(t, d, "nf4", 1)
    local e2 = plan(t, d, "nf4", 2)
    check(q.weights_bytes < a.weights_bytes / 3, t .. ": nf4 under a third")
    check(e2.weights_bytes < q.weights_bytes, t .. ": ep 2 shards experts")
    check(e2.trainable_params == q.trainable_params, t .. ": same adapters")
    check(q.fits and e2.fits, t .. ": QLoRA fits on 2 x 80 GB")
  end
end

-- host_buffer_factor: the host figure is the offloaded bytes times it
local off = tplan.sweep{
  name = "ds_host", model = "llama2-7b", gpu = "a100-80g", gpus = 1,
  seq = 512, micro_batch = 1, zero = 3, offload_optimizer = "cpu",
  offload_params = "cpu", axes = {host_buffer_factor = {1, 1.5}},
  rank = {"total_bytes"}, keep = "all",
}
local h = off:top(2)
table.sort(h, function(x, y) return x.host_buffer_factor < y.host_buffer_factor end)
check(#h == 2 and h[1].host_buffer_factor == 1 and
      h[2].host_buffer_factor == 1.5, "both factors")
-- DeepSpeed's estimate_zero3_model_states_mem_needs: 18 P x 1.5
check(h[1].host_bytes == 18 * 6738415616, "18 bytes a parameter")
check(h[2].host_bytes == 18 * 6738415616 * 3 // 2, "x 1.5: DeepSpeed's")
print(("ok %d checks"):format(n))
