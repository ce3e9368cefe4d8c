-- Issue 37's layout axes swept (run by tests/test_lua.sh, so in CI):
-- expert-tensor parallelism (etp) on Mixtral-8x7B and uneven pipeline
-- stages (pp_first_layers, pp_last_layers: each swept) on Llama-3-8B and
-- DeepSeek-V3.
-- Expected figures are worked from the models' configs, not read from a
-- run: Mixtral-8x7B has 32 layers of 8 experts, each three 4096 x 14336
-- matrices (w1, w2, w3: config.json hidden_size, intermediate_size).
local n = 0
local function check(cond, what)
  n = n + 1
  if not cond then error("check failed: " .. what, 2) end
end

-- etp: pure bf16 keeps 2 bytes a weight and no other copy, so the weight
-- bytes a GPU holds move by exactly 2 bytes a parameter it stops holding
local res = tplan.sweep{
  name = "etp", model = "mixtral-8x7b", gpu = "h100-sxm", gpus = 16,
  tp = 8, sp = true, ep = 2, precision = "bf16", seq = 4096,
  micro_batch = 1, recompute = "full",
  axes = {etp = {1, 2, 4, 8}}, rank = {"total_bytes"}, keep = "all",
}
local by = {}
for _, p in ipairs(res:top(10)) do by[p.etp] = p end
check(by[1] and by[2] and by[4] and by[8], "every etp evaluates")
local experts = 32 * 8 * 3 * 4096 * 14336 -- 45,097,156,608
for _, e in ipairs({1, 2, 4}) do
  -- each GPU holds experts / ep / etp; the attention, router and
  -- embeddings (the rest) do not move with etp
  local held = experts / 2 / e - experts / 2 / 8
  check(by[e].weights_bytes - by[8].weights_bytes == 2 * held,
        ("etp %d: expert weights x %d of etp 8's"):format(e, 8 // e))
  check(by[e].dp == by[8].dp, "etp leaves the dense grid's dp")
  -- the expert-data-parallel group grows as etp shrinks: ZeRO has more to
  -- shard over, the weights more to hold
  check(by[e].weights_bytes > by[e * 2].weights_bytes, "fewer shards, more")
end
-- etp 8 is the default (etp = tp): the same plan as no etp given
local same = tplan.plan{model = "mixtral-8x7b", gpu = "h100-sxm", gpus = 16,
  tp = 8, sp = true, ep = 2, precision = "bf16", seq = 4096,
  micro_batch = 1, recompute = "full"}
check(same.etp == 8 and same.total_bytes == by[8].total_bytes and
      same.step_time_s == by[8].step_time_s, "etp defaults to tp")
-- Megatron-Core's expert grid: etp x ep must divide gpus / pp
local ok, err = pcall(tplan.plan, {model = "mixtral-8x7b", gpu = "h100-sxm",
  gpus = 16, tp = 8, ep = 8, etp = 4, seq = 4096})
check(not ok and tostring(err):find("etp*ep must divide gpus/pp", 1, true),
      "etp x ep over gpus / pp refused: " .. tostring(err))

-- uneven stages: Llama-3-8B's 32 layers on 4 stages; moving layers off
-- the last stage (it also holds the LM head and the loss) to the middle
local st = tplan.sweep{
  name = "uneven", model = "llama3-8b", gpu = "h100-sxm", gpus = 4, pp = 4,
  seq = 4096, micro_batch = 1, zero = 0,
  axes = {pp_last_layers = {0, 2, 5}}, rank = {"step_time_s"}, keep = "all",
}
local u = {}
for _, p in ipairs(st:top(10)) do u[p.pp_last_layers] = p end
check(u[0].pp_stage_layers == "8x4", "even: " .. u[0].pp_stage_layers)
check(u[2].pp_stage_layers == "10x3,2x1", "last 2: " .. u[2].pp_stage_layers)
check(u[5].pp_stage_layers == "9x3,5x1", "last 5: " .. u[5].pp_stage_layers)
-- the LM head is 4096 x 128256 = 525M weights against a layer's 218M:
-- about 2.4 layers of work. Even, the last stage (8 layers and the head,
-- ~10.4) sets the pace; with 2 layers there (~4.4) the tens do, and the
-- step is shorter; with 5 there (~7.4) the nines, shorter still
check(u[0].slowest_stage == 3, "even: the last stage is the slowest")
check(u[2].slowest_stage == 0, "last 2: the first of the tens")
check(u[5].slowest_stage == 0, "last 5: the first of the nines")
check(u[2].step_time_s < u[0].step_time_s, "10 < 8 + the head")
check(u[5].step_time_s < u[2].step_time_s, "9 < 10")
-- layers off the first stage go to the others, the last included when no
-- last count is given. Under 1F1B the first stage keeps pp micro-batches'
-- activations in flight, the next pp - 1 and so on, so it is the fullest
-- in memory, and moving layers off it lowers the peak: layers x in-flight
-- micro-batches of the fullest stage, 8 x 4 = 32 even, 10 x 3 = 30 (the
-- second stage) with 2 on the first, 9 x 3 = 27 with 5 there
local sf = tplan.sweep{
  name = "uneven-first", model = "llama3-8b", gpu = "h100-sxm", gpus = 4, pp = 4,
  seq = 4096, micro_batch = 1, zero = 0,
  axes = {pp_first_layers = {0, 2, 5}}, rank = {"step_time_s"}, keep = "all",
}
local f = {}
for _, p in ipairs(sf:top(10)) do f[p.pp_first_layers] = p end
check(f[0].pp_stage_layers == "8x4", "first even: " .. f[0].pp_stage_layers)
check(f[2].pp_stage_layers == "2x1,10x3", "first 2: " .. f[2].pp_stage_layers)
check(f[5].pp_stage_layers == "5x1,9x3", "first 5: " .. f[5].pp_stage_layers)
check(f[0].total_bytes > f[2].total_bytes and f[2].total_bytes > f[5].total_bytes,
      "the peak falls with layers off the first stage: 32 > 30 > 27")
-- an odd middle count is refused as Megatron refuses it
ok, err = pcall(tplan.plan, {model = "llama3-8b", gpu = "h100-sxm",
  gpus = 4, pp = 4, pp_last_layers = 3, seq = 4096})
check(not ok and tostring(err):find("middle stages must divide", 1, true),
      "29 layers over 3 middle stages refused: " .. tostring(err))

-- DeepSeek-V3's layout (61 layers on 16 stages: 3 on the first, 4 on each
-- middle one, 2 on the last, beside the embedding, the MTP module and the
-- loss) given as first and last layers is the pp_embed_loss split
local base = {model = "deepseek-v3", gpu = "h800", gpus = 2048, pp = 16,
  ep = 64, precision = "fp8", zero = 1, global_batch = 15360,
  micro_batch = 1}
local a = tplan.plan(setmetatable({pp_embed_loss = true}, {__index = base}))
local b = tplan.plan(setmetatable({pp_first_layers = 3, pp_last_layers = 2},
                                  {__index = base}))
check(a.pp_stage_layers == "3x1,4x14,2x1" and b.pp_stage_layers == a.pp_stage_layers,
      "DeepSeek-V3: 3x1,4x14,2x1")
check(a.total_bytes == b.total_bytes and a.step_time_s == b.step_time_s,
      "the same plan either way")
-- the same split as a per-stage list, first to last: pp_layers sets pp and
-- the two ends; a list whose middle stages differ is refused (Megatron
-- splits unevenly only at the ends)
local mid = {3}
for i = 2, 15 do mid[i] = 4 end
mid[16] = 2
local function listed(layers)
  local t = {pp_layers = layers}
  for k, v in pairs(base) do if k ~= "pp" then t[k] = v end end
  return t
end
local c = tplan.plan(listed(mid))
check(c.pp == 16 and c.pp_stage_layers == "3x1,4x14,2x1" and
      c.total_bytes == b.total_bytes and c.step_time_s == b.step_time_s,
      "pp_layers: the first-and-last plan")
mid[8] = 5
mid[9] = 3
ok, err = pcall(tplan.plan, listed(mid))
check(not ok and tostring(err):find("middle stages must hold the same layers", 1, true),
      "an uneven middle refused: " .. tostring(err))
ok, err = pcall(tplan.plan, {model = "llama3-8b", gpu = "h100-sxm", pp_layers = {10, 10, 10}})
check(not ok and tostring(err):find("the stages hold 30 layers, the model has 32", 1, true),
      "a list that misses layers refused: " .. tostring(err))
print(("ok %d checks"):format(n))
