-- Issue 37's offloading and FSDP2 axes swept (run by tests/test_lua.sh,
-- so in CI): offload_activations on a Llama-3-8B LoRA fine-tune at 32k
-- tokens, and zero_shard_group (HSDP) with reshard_after_forward on
-- Llama-3-8B over 64 H100s. Each plan is checked against bytes worked by
-- hand (docs/MODEL.md section 12.10; tests/test_memory.c has the same
-- sums in C) or against its neighbour on the axis. Byte figures are
-- rounded to whole bytes one by one: tolerances of a byte or two.
local n = 0
local function check(cond, what)
  n = n + 1
  if not cond then error("check failed: " .. what, 2) end
end
local function near(a, b, tol, what)
  check(math.abs(a - b) <= tol, ("%s: %.17g, want %.17g"):format(what, a, b))
end

-- Activation offloading: every layer keeps its 16-bit input under full
-- recomputation, 2 s h bytes (Korthikanti et al. 2022), and the
-- embedding its int64 ids, 8 s; a share f offloads f of the ids and of
-- 31 of the 32 layers and stages f of one: the GPU falls by
-- f (8 s + 30 layers), the host rises by f (8 s + 31 layers).
local s, h, L = 32768, 4096, 32
local layer, ids = 2 * s * h, 8 * s
local act = tplan.sweep{
  name = "act_offload", model = "llama3-8b", gpu = "h100-sxm", gpus = 1,
  seq = s, micro_batch = 1, finetune = true, lora_rank = 16,
  recompute = "full",
  axes = {offload_activations = {0, 0.25, 0.5, "all"}},
  rank = {"total_bytes"}, keep = "all",
}
local by = {}
for _, p in ipairs(act:top(10)) do by[p.offload_activations] = p end
check(by[0] and by[0.25] and by[0.5] and by[1], "four shares, all = 1")
for _, f in ipairs({0.25, 0.5, 1}) do
  local p = by[f]
  near(by[0].activations_bytes - p.activations_bytes,
       f * (ids + (L - 2) * layer), 1, "GPU activations fall at " .. f)
  near(by[0].total_bytes - p.total_bytes, f * (ids + (L - 2) * layer), 2,
       "GPU total falls at " .. f)
  near(p.host_bytes, f * (ids + (L - 1) * layer), 1, "host rises at " .. f)
  check(p.act_offload_bytes == p.host_bytes, "the host holds only them")
  -- Gen5 PCIe (50.4 GB/s here) moves 8.3 GB each way in 0.17 s, under
  -- a forward of over 2 s: hidden
  check(p.act_offload_time_s == 0 and p.step_time_s == by[0].step_time_s,
        "copies hidden at " .. f)
end
check(not by[0].fits and by[1].fits, "offloading all makes it fit")
check(by[0].host_bytes == 0, "no host memory without offloading")

-- HSDP: ZeRO-3 states over the shard group, not all 64; 64 is plain ZeRO;
-- no reshard holds the unsharded 16-bit weights (params x 2) at the
-- forward's end and drops one all-gather of three.
local hs = tplan.sweep{
  name = "hsdp", model = "llama3-8b", gpu = "h100-sxm", gpus = 64, zero = 3,
  seq = 4096, micro_batch = 1,
  axes = {zero_shard_group = {0, 8, 64}, reshard_after_forward = {true, false}},
  rank = {"total_bytes"}, keep = "all",
}
local g = {}
for _, p in ipairs(hs:top(10)) do
  g[("%d/%s"):format(p.zero_shard_group, tostring(p.reshard_after_forward))] = p
end
local P = g["8/true"].params
for _, r in ipairs({"true", "false"}) do
  local p8, p64 = g["8/" .. r], g["64/" .. r]
  check(p8.zero_replicas == 8 and p64.zero_replicas == 1, "replicas")
  near(p8.weights_bytes, P * 2 / 8, 1, "weights over 8")
  near(p8.grads_bytes, P * 2 / 8, 1, "gradients over 8")
  near(p8.optimizer_bytes, P * 12 / 8, 1, "master and Adam states over 8")
  near(p64.optimizer_bytes, P * 12 / 64, 1, "plain ZeRO-3: over 64")
end
-- 0 (the whole group, read back as given) is the plan of 64
for _, r in ipairs({"true", "false"}) do
  check(g["0/" .. r].total_bytes == g["64/" .. r].total_bytes and
        g["0/" .. r].step_time_s == g["64/" .. r].step_time_s and
        g["0/" .. r].zero_replicas == 1, "0 is plain ZeRO")
end
near(g["64/false"].total_bytes - g["64/true"].total_bytes, P * 2, 2,
     "no reshard holds the unsharded weights")
check(g["64/false"].step_time_s < g["64/true"].step_time_s,
      "no reshard: one all-gather less")
check(g["8/true"].total_bytes > g["64/true"].total_bytes,
      "groups of 8 hold 8 times the states of 64")
print(("ok %d checks"):format(n))
