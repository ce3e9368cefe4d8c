-- GPU-count scaling at a fixed global batch: for each GPU count, the
-- fastest plan over tensor/pipeline parallelism, ZeRO stage, recomputation
-- and micro-batch, with its throughput per GPU and the scaling efficiency
-- against the smallest count (the reference guides quote 90-95% at 2-8
-- GPUs and 80-90% at 8-64: Batch Size Optimizer guide, docs/MODEL.md §5.12).
--
--   tplan run scripts/scaling.lua [-- model=llama3-70b gpus=64,128,256]
local a = tplan.args(arg, {
  model = "llama3-8b", gpu = "h100-sxm", precision = "mixed-bf16",
  seq = 8192, global_batch_tokens = 4194304, tokens = 1e12,
  gpus = {8, 16, 32, 64, 128, 256, 512},
})

local rows = {}
for _, n in ipairs(a.gpus) do
  local res = tplan.sweep{
    name = "scaling-" .. n, model = a.model, gpu = a.gpu, gpus = n,
    precision = a.precision, seq = a.seq, tokens = a.tokens,
    global_batch_tokens = a.global_batch_tokens,
    axes = {tp = {1, 2, 4, 8}, pp = {1, 2, 4, 8}, zero = {1, 2, 3},
            recompute = {"none", "selective", "full"}, sp = {false, true},
            micro_batch = {1, 2, 4, 8, "max"}},
    limits = {fits = true},
    rank = {"time_h", "cost_usd"}, keep = 1,
  }
  local best = res:top(1)[1]
  if best then rows[#rows + 1] = best
  else print(("%d GPUs: no plan fits"):format(n)) end
end
if #rows == 0 then return end

local base = rows[1]
local base_per_gpu = base.tokens_per_s / base.gpus
tplan.print_table(rows, {
  {"gpus", "gpus"}, {"tp", "tp"}, {"pp", "pp"}, {"dp", "dp"}, {"zero", "zero"},
  {"recompute", "recompute"}, {"mb", "micro_batch"}, {"accum", "accum"},
  {"step s", "step_time_s", "%.2f"},
  {"tok/s/gpu", function(p) return p.tokens_per_s / p.gpus end, "%.0f"},
  {"mfu", "mfu", "%.3f"},
  {"efficiency", function(p) return (p.tokens_per_s / p.gpus) / base_per_gpu end, "%.3f"},
  {"days", function(p) return p.time_h / 24 end, "%.1f"},
  {"cost $", "cost_usd", "%.0f"},
})
print(("efficiency: tokens/s per GPU against %d GPUs; %s, %s, seq %d, %s tokens per step")
      :format(base.gpus, a.model, a.gpu, a.seq, tplan.human(a.global_batch_tokens)))
