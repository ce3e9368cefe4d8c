-- Sweep benchmark: full plan evaluations per second over spaces of more
-- than 10M configurations, without a filter, with a `where` expression
-- (checked in C on every thread) and with a trivial Lua `where` hook.
-- Run by scripts/bench_sweep.sh; the figures go in docs/benchmarks.md.
--
--   tplan run tests/bench/sweep_bench.lua --threads 2 [-- size=small] [staged=false] [comm=false] [lr=true]
--
-- comm=false drops the GPT-3 space's communication-only axes (overlap,
-- nic_gbps): every plan left is a full evaluation, which separates their
-- cost from the staged re-evaluations' (docs/benchmarks.md). lr=true
-- sweeps the Llama space's reference LR (five values) where its price
-- axis was: the same size, the LR recipe innermost.
local a = tplan.args(arg, {size = "full", hook_limit = 0, staged = "true", comm = "true",
                           lr = "false"})

-- GPT-3 175B on 1024 A100-80GB, the space Calculon searches (TP x PP x DP
-- x interleaving x recomputation x ZeRO x micro-batch; Isaev et al.,
-- SC'23, 11.7M executions), widened with sequence parallelism, attention,
-- precision, comm overlap, NIC speed and global batch.
local function gpt3_axes(small)
  local ax = {
    tp = {1, 2, 4, 8, 16, 32},
    pp = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 96},
    vpp = {1, 2, 3, 4, 6, 8},
    recompute = {"none", "selective", "full"},
    zero = {0, 1, 2, 3},
    micro_batch = {1, 2, 3, 4, 6, 8, 12, 16},
    sp = {false, true},
    attention = {"eager", "flash"},
    precision = {"mixed-bf16", "fp8"},
    overlap = {0, 0.5},
    nic_gbps = {100, 200, 400, 800},
    global_batch = {768, 1536, 2304, 3072},
  }
  if small then ax.pp = {1, 8}; ax.vpp = {1, 2}; ax.global_batch = {1536}; ax.nic_gbps = {400} end
  if a.comm == "false" then ax.overlap = nil; ax.nic_gbps = nil end
  return ax
end

-- Llama-3-8B over GPU counts, precisions, sequence lengths and batch:
-- mostly valid configurations (few pruned), so nearly every index is a
-- full evaluation.
local function llama_axes(small)
  local ax = {
    gpus = {8, 16, 32, 64, 128, 256, 512, 1024},
    tp = {1, 2, 4, 8},
    pp = {1, 2, 4, 8},
    zero = {0, 1, 2, 3},
    recompute = {"none", "selective", "full"},
    precision = {"mixed-bf16", "bf16", "fp8"},
    seq = {2048, 4096, 8192, 16384},
    micro_batch = {1, 2, 4, 8, "max"},
    sp = {false, true},
    overlap = {0, 0.5, 1},
    nic_gbps = {200, 400, 800, 1600},
    price = {2, 2.5, 3, 3.5, 4},
  }
  if small then ax.gpus = {8, 64}; ax.seq = {4096}; ax.overlap = {0.5}; ax.nic_gbps = {400}; ax.price = {3} end
  if a.lr == "true" then ax.lr = {1e-4, 2e-4, 3e-4, 4e-4, 6e-4}; ax.price = nil end
  return ax
end

local small = a.size == "small"
local spaces = {
  {name = "gpt3-175b-1024xa100", model = "gpt3-175b", gpu = "a100-80g", gpus = 1024,
   seq = 2048, tokens = 3e11, axes = gpt3_axes(small)},
  {name = "llama3-8b-h100", model = "llama3-8b", gpu = "h100-sxm",
   global_batch_tokens = 4194304, tokens = 1.5e13, axes = llama_axes(small)},
}

local function run(sp, where)
  local spec = {rank = {"time_h", "cost_usd"}, keep = 100, pareto = true, where = where,
                staged = a.staged ~= "false"}
  for k, v in pairs(sp) do spec[k] = v end
  local res = tplan.sweep(spec)
  local s = res:stats()
  print(("%-22s %-9s space %10d  evaluated %10d  pruned %10d  %6.2f s  %5.2f M evals/s  %5.2f M configs/s")
        :format(sp.name, type(where) == "string" and "where str" or where and "where fn" or "no hook", s.space, s.evaluated, s.invalid,
                s.seconds, s.evaluated / s.seconds / 1e6, s.visited / s.seconds / 1e6))
  return res
end

for _, sp in ipairs(spaces) do
  local plain = run(sp)
  local expr = run(sp, "mfu > 0.05")
  local hooked = run(sp, function(p) return p.mfu > 0.05 end)
  -- the same winners with and without the filter (it keeps them all)
  assert(plain:top(1)[1].index == hooked:top(1)[1].index, "hook changed the winner")
  assert(plain:top(1)[1].index == expr:top(1)[1].index, "where changed the winner")
  assert(expr:stats().dropped.where == hooked:stats().dropped.where, "where and hook differ")
end
