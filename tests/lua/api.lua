-- Happy paths of the Lua API, run through the real binary by
-- tests/test_lua.sh. Each check states what the engine must give; a
-- failure names the check. Figures come from docs/MODEL.md §1 (parameter
-- counts) or from identities any plan must satisfy.
local n = 0
local function check(cond, what)
  n = n + 1
  if not cond then error("check failed: " .. what, 2) end
end

-- models and GPUs -------------------------------------------------------
local gpt2 = tplan.model "gpt2"
check(gpt2.params == 124439808, "gpt2 has 124,439,808 parameters (docs/MODEL.md §1)")
check(gpt2.layers == 12 and gpt2.hidden == 768 and gpt2.heads == 12, "gpt2 shape")
check(tostring(gpt2):find("gpt2", 1, true), "model __tostring names it")
local l7 = tplan.model{layers = 32, hidden = 4096, heads = 32, ffn = 11008,
                       vocab = 32000, mlp = "swiglu", norm = "rmsnorm",
                       pos = "rotary", tied = false, bias = false, max_seq = 4096}
check(l7.params == 6738415616, "Llama-2-7B by fields: 6,738,415,616 (docs/MODEL.md §1)")
check(tplan.model{preset = "llama3-8b", max_seq = 2048}.max_seq == 2048,
      "a preset's field can be overridden")
-- Gemma 2 9B typed by hand: a head width apart from hidden/heads and four
-- norms per block give the published 9,241,705,984; Qwen2.5 7B's q, k, v
-- biases its 7,615,616,512
local g9 = tplan.model{layers = 42, hidden = 3584, heads = 16, kv_heads = 8,
  head_dim = 256, block_norms = 4, ffn = 14336, vocab = 256000, mlp = "swiglu",
  norm = "rmsnorm", pos = "rotary", tied = true, bias = false}
check(g9.params == 9241705984 and g9.head_dim == 256 and g9.block_norms == 4,
  "gemma2-9b by hand: " .. g9.params)
check(tplan.model "gemma2-9b".params == g9.params, "gemma2-9b preset")
local q7 = tplan.model{layers = 28, hidden = 3584, heads = 28, kv_heads = 4,
  ffn = 18944, vocab = 152064, mlp = "swiglu", norm = "rmsnorm",
  pos = "rotary", tied = false, bias = false, qkv_bias = true}
check(q7.params == 7615616512 and q7.qkv_bias and q7.head_dim == 128,
  "qwen2.5-7b by hand: " .. q7.params)
local gen = tplan.model{params = 25557032, act_bytes_per_sample = 1e8, name = "r50"}
check(gen.params == 25557032 and gen.name == "r50", "generic model")

local a100 = tplan.gpu "a100-80g"
check(a100.memory_bytes == 85056798720, "a100-80g: the catalog's runtime-reported bytes")
local mine = tplan.gpu{base = "h100-sxm", name = "h100-cheap", price = 1.5}
check(mine.name == "h100-cheap" and mine.price == 1.5, "gpu from a base")
check(mine.bf16_flops == tplan.gpu("h100-sxm").bf16_flops, "base's peaks kept")
local scratch = tplan.gpu{name = "toy", memory_gib = 16, bf16_flops = 100e12,
                          fp32_flops = 20e12}
check(scratch.memory_bytes == 16 * 1024 ^ 3, "gpu from scratch")

-- one plan --------------------------------------------------------------
local p = tplan.plan{model = "llama3-8b", gpu = "h100-sxm", gpus = 8, zero = 1,
                     precision = "mixed-bf16", seq = 8192, micro_batch = 1,
                     recompute = "full", tokens = 1e12}
check(type(p) == "table", "a plan is a plain table")
check(p.params == 8030261248, "llama3-8b: 8,030,261,248 parameters")
check(p.total_bytes == p.weights_bytes + p.grads_bytes + p.optimizer_bytes
      + p.activations_bytes + p.overhead_bytes, "total is the sum of its parts")
check(p.dp == p.gpus // (p.tp * p.pp), "dp = gpus / (tp * pp)")
check(p.global_batch == p.micro_batch * p.accum * p.dp, "global batch algebra")
check(p.fits == (p.total_bytes <= p.usable_bytes), "fits agrees with the bytes")
check(type(p.warnings) == "table", "warnings are an array")
check(p.step_time_s > 0 and p.mfu > 0 and p.mfu < 1, "time model ran")
check(math.abs(p.time_h * 3600 - p.steps * p.step_time_s) < 1e-6 * p.time_h * 3600,
      "time = steps * step time")
check(p.lr_peak == nil or p.lr_peak > 0, "lr peak when asked")
local q = tplan.plan{model = gpt2, gpu = a100, micro_batch = "max", seq = 1024}
check(q.micro_batch == q.max_micro_batch and q.fits, "micro_batch = \"max\"")
local r = tplan.plan{model = "gpt2", gpu = a100, global_batch_tokens = 524288,
                     seq = 1024, micro_batch = 8, lr = 6e-4, lr_base_batch = 512,
                     lr_rule = "linear", warmup = "1%", tokens = 1e10}
check(r.global_batch == 512 and r.accum == 64, "target global batch -> accum")
check(math.abs(r.lr_peak - 6e-4) < 1e-12, "linear rule at the base batch keeps LR")
check(r.lr and r.lr.kind == "cosine" and r.lr.warmup_steps == r.warmup_steps,
      "schedule table")

-- lr_at -----------------------------------------------------------------
local s = {peak = 1e-3, floor = 1e-4, warmup_steps = 100, total_steps = 1000}
check(tplan.lr_at(s, 0) < 1e-3 * 0.02, "warmup starts near zero")
check(math.abs(tplan.lr_at(s, 100) - 1e-3) < 1e-12, "peak after warmup")
check(math.abs(tplan.lr_at(s, 1000) - 1e-4) < 1e-12, "cosine ends at the floor")

-- a sweep ---------------------------------------------------------------
local seen = 0
local res = tplan.sweep{
  name = "api", model = "llama3-8b", gpu = "h100-sxm", tokens = 1e11,
  global_batch_tokens = 2 ^ 21,
  axes = {gpus = {8, 16, 32}, tp = {1, 2, 4}, zero = {1, 3},
          recompute = {"none", "full"}, seq = {4096, 8192}, micro_batch = "max"},
  limits = {fits = true},
  where = function(v) seen = seen + 1; return v.tp <= 2 end,
  rank = {"cost_usd", "time_h"},
  keep = 20,
  pareto = true,
}
local st = res:stats()
check(st.space == 3 * 3 * 2 * 2 * 2, "space is the product of the axes")
check(st.visited == st.space, "one shard walks everything")
check(st.evaluated + st.invalid == st.visited, "every index is pruned or evaluated")
local fitting = tplan.sweep{
  model = "llama3-8b", gpu = "h100-sxm", tokens = 1e11, global_batch_tokens = 2 ^ 21,
  axes = {gpus = {8, 16, 32}, tp = {1, 2, 4}, zero = {1, 3},
          recompute = {"none", "full"}, seq = {4096, 8192}, micro_batch = "max"},
  limits = {fits = true}, keep = "fits"}
check(seen == fitting:count(), "where runs exactly on the plans that passed the limits")
check(seen < st.evaluated, "the limits pruned some plans before where")
check(res:count() == math.min(20, st.passed), "keep = 20")
local top = res:top(100)
check(#top == res:count(), "top(n) is capped by what was kept")
for i, t in ipairs(top) do
  check(t.fits and t.tp <= 2, "kept plans pass limits and where")
  -- "max": the largest that fits, capped by the per-replica batch
  check(t.micro_batch <= t.max_micro_batch and
        (t.micro_batch == t.max_micro_batch or
         t.micro_batch * t.accum * t.dp == t.global_batch),
        "micro_batch = max on an axis")
  if i > 1 then
    local a, b = top[i - 1], t
    check(a.cost_usd < b.cost_usd or (a.cost_usd == b.cost_usd and
          (a.time_h < b.time_h or (a.time_h == b.time_h and a.index < b.index))),
          "ranked by cost, then time, then index")
  end
end
local front = res:pareto()
check(#front >= 1, "a Pareto front")
for _, a in ipairs(front) do
  for _, b in ipairs(front) do
    check(not (b.cost_usd <= a.cost_usd and b.time_h <= a.time_h and
               (b.cost_usd < a.cost_usd or b.time_h < a.time_h)),
          "no front member dominates another")
  end
end
local f2 = res:pareto{"tokens_per_s", "total_bytes"}
check(#f2 >= 1 and #f2 <= res:count(), "a front over other objectives")
local k = 0
for t in res:each() do k = k + 1; check(t.index ~= nil, "each gives plans") end
check(k == res:count(), "each walks every kept plan")
check(tostring(res):find("api", 1, true), "result __tostring")

-- score hook, keep = "all", gpu axis, snapshots -----------------------------
local snap
local all = tplan.sweep{
  model = "gpt2", axes = {gpu = {"a100-80g", tplan.gpu "h100-sxm"},
                          gpus = {1, 2, 4}, micro_batch = {1, 2, 4}},
  seq = 1024, tokens = 1e9, keep = "all",
  score = function(v) snap = snap or v:table(); return v.tokens_per_s / v.gpus end,
  rank = {"score"},
}
check(all:count() == 2 * 3 * 3, "keep = all keeps every valid plan")
local at = all:top(all:count())
for i = 2, #at do
  check(at[i - 1].score >= at[i].score, "score ranks biggest first")
end
check(at[1].score == at[1].tokens_per_s / at[1].gpus, "score is carried")
check(snap and snap.model == "gpt2" and snap.index ~= nil, "v:table() keeps a snapshot")
local gpus = {}
for _, t in ipairs(at) do gpus[t.gpu] = true end
check(gpus["a100-80g"] and gpus["h100-sxm"], "the gpu axis varies the GPU")

-- CSV -------------------------------------------------------------------
local path = os.tmpname()
check(res:csv(path) == res:count(), "csv returns the rows written")
local lines = {}
for line in io.lines(path) do lines[#lines + 1] = line end
os.remove(path)
check(#lines == res:count() + 1, "header + one row per kept plan")
check(lines[1]:sub(1, 11) == "sweep,rank,", "header starts sweep,rank")
check(lines[2]:sub(1, 6) == "api,1,", "first row is rank 1")

-- every field a model or GPU is made with reads back (no write-only ones)
local custom = tplan.model{params = 7e9, act_bytes_per_sample = 1e6,
                           flops_per_sample = 2e9, largest_layer_params = 1e8,
                           batch_norm = true}
check(custom.params == 7e9 and custom.act_bytes_per_sample == 1e6 and
      custom.flops_per_sample == 2e9 and custom.largest_layer_params == 1e8 and
      custom.batch_norm == true, "a generic model's fields read back")
local g = tplan.gpu{base = "a100-80g", name = "mine", memory_gib = 40,
                    eff_max = 0.7, eff_h0 = 500, eff_tok0 = 256, attn_eff = 0.2,
                    fp8_ratio = 0.5, eff_tp = 0.1, price = 2, tdp_w = 300}
check(g.memory_gib == 40 and g.memory_bytes == 40 * 2^30, "memory_gib reads back")
check(g.eff_max == 0.7 and g.eff_h0 == 500 and g.eff_tok0 == 256 and
      g.attn_eff == 0.2 and g.fp8_ratio == 0.5 and g.eff_tp == 0.1,
      "the efficiency model's fields read back")
check(g.price == 2 and g.tdp_w == 300 and g.name == "mine", "price, tdp, name")
-- NVLink SHARP channels: from the base's server, or given
check(g.nvls_channels == 0 and tplan.gpu("h100-sxm").nvls_channels == 16,
      "nvls_channels from the catalog")
local nv = tplan.gpu{base = "a100-80g", name = "nvs", nvls_channels = 16}
local function nccl(gpu)
  return tplan.plan{model = "llama3-8b", gpu = gpu, gpus = 8, zero = 3,
                    micro_batch = 1, framework = "fsdp"}.nccl_bytes
end
check(nv.nvls_channels == 16 and nccl(nv) - nccl("a100-80g") == 256 * 2^20,
      "a GPU given NVLS channels gets the NVLS buffers")
-- the BLAS workspace PyTorch gives a GPU family: a GPU from scratch has
-- the non-Hopper default, a base its own, or given
check(g.blas_ws_mib == 8.125 and tplan.gpu("h100-sxm").blas_ws_mib == 32,
      "blas_ws_mib from the catalog")
local function blas(gpu)
  return tplan.plan{model = "llama3-8b", gpu = gpu, gpus = 8,
                    micro_batch = 1, framework = "fsdp"}.blas_ws_bytes
end
local ws = tplan.gpu{base = "a100-80g", name = "ws", blas_ws_mib = 64}
check(ws.blas_ws_mib == 64 and blas(ws) == 2 * 64 * 2^20 and
      blas("a100-80g") == 2 * 8.125 * 2^20,
      "a GPU given a BLAS workspace gets it under a framework")
check(not pcall(function() return g.nosuch end), "an unknown GPU field raises")
check(#tplan.fields() > 80 and tplan.fields()[1].name == "model",
      "tplan.fields() lists the field table")

-- res:stats() counts the valid plans each limit (or the hook) dropped
local dr = tplan.sweep{model = "gpt2", axes = {gpus = {1, 2, 4, 8}},
                       limits = {min_global_batch = 300},
                       where = function(p) return p.gpus ~= 8 end}:stats()
check(dr.evaluated == 4 and dr.dropped.min_global_batch + dr.dropped.where == 4 -
      dr.passed and dr.dropped.fits == 0, "dropped counts add up")

-- equivalent configurations: set aside and counted, unless kept; a where
-- hook sees only the ones kept. gpus {1, 2} x zero {0, 3} x recompute
-- {none, selective} under flash: 8 valid, the 2 with zero 3 on one GPU and
-- the 3 others with selective set aside, 3 left
local eq_spec = {model = "gpt2", gpu = "a100-80g", micro_batch = 1,
                 axes = {gpus = {1, 2}, zero = {0, 3}, recompute = {"none", "selective"}}}
local eq = tplan.sweep(eq_spec)
local st = eq:stats()
check(st.evaluated == 8 and st.dropped.equivalent == 5 and st.passed == 3 and eq:count() == 3,
      "equivalents set aside: " .. st.dropped.equivalent)
for p in eq:each() do
  check(p.recompute == "none" and (p.gpus == 2 or p.zero == 0), "a kept twin")
end
eq_spec.keep_equivalents = true
local all = tplan.sweep(eq_spec)
check(all:count() == 8 and all:stats().dropped.equivalent == 0, "keep_equivalents ranks all")
eq_spec.keep_equivalents = "yes"
local ok_, msg = pcall(tplan.sweep, eq_spec)
check(not ok_ and msg:find("keep_equivalents", 1, true), "keep_equivalents must be a boolean: " .. tostring(msg))

-- the fit advice's search ("would fit with ...") in written plans: a
-- keep = "all" sweep writes it only when asked (advice = true), a top-N
-- sweep always; the diagnosis ("needs X GiB ...") is there either way
local function written(spec)
  local f = os.tmpname()
  tplan.sweep(spec):csv(f)
  local text = {}
  for line in io.lines(f) do text[#text + 1] = line end
  os.remove(f)
  return table.concat(text, "\n")
end
local aspec = {model = "llama3-8b", gpu = "a100-40g", tokens = 1e12,
  axes = {gpus = {1, 8}, zero = {0, 3}}, keep = "all"}
local plain = written(aspec)
aspec.advice = true
local advised = written(aspec)
check(not plain:find("would fit with", 1, true) and plain:find("does not fit", 1, true),
      "keep = 'all' writes the diagnosis, not the search")
check(advised:find("would fit with", 1, true), "advice = true writes the search")
aspec.advice, aspec.keep = nil, 4
check(written(aspec):find("would fit with", 1, true), "a top-N sweep writes the search")
aspec.advice = "yes"
ok_, msg = pcall(tplan.sweep, aspec)
check(not ok_ and msg:find("advice", 1, true), "advice must be a boolean: " .. tostring(msg))

-- a where expression keeps exactly what the same Lua function keeps, on
-- any number of threads, and counts what it drops under `where`
local wspec = {model = "llama3-8b", gpu = "h100-sxm", tokens = 1e12,
  axes = {gpus = {8, 16, 32}, zero = {0, 1, 3}, micro_batch = {1, 2, 4},
          recompute = {"none", "full"}, precision = {"bf16", "amp-bf16"}},
  keep = "all", keep_equivalents = true}
local function kept(res)
  local t = {}
  for p in res:each() do t[#t + 1] = p.index end
  table.sort(t)
  return table.concat(t, ",")
end
wspec.where = function(p) return p.fits and (p.precision == "bf16" or p.gpus * p.micro_batch >= 64) end
local by_fn = tplan.sweep(wspec)
wspec.where = "fits and (precision == 'bf16' or gpus * micro_batch >= 64)"
wspec.threads = 1
local by_expr1 = tplan.sweep(wspec)
wspec.threads = 2
local by_expr2 = tplan.sweep(wspec)
check(by_fn:count() > 0 and by_fn:count() < by_fn:stats().evaluated, "the filter keeps some, drops some")
check(kept(by_fn) == kept(by_expr1) and kept(by_fn) == kept(by_expr2), "where expression = where function, 1 or 2 threads")
check(by_expr2:stats().dropped.where == by_fn:stats().dropped.where, "both count their drops under where")

print(("ok %d checks"):format(n))
