-- Precision comparison: the same model, GPUs and batch under each
-- precision recipe: memory per GPU, largest micro-batch, speed and cost.
--
--   tplan run scripts/precision.lua [-- model=llama2-13b gpus=16]
local a = tplan.args(arg, {
  model = "llama3-8b", gpu = "h100-sxm", gpus = 8, zero = 1, seq = 4096,
  global_batch_tokens = 2097152, tokens = 1e12, optimizer = "adamw",
  precisions = {"fp32", "amp-bf16", "mixed-bf16", "bf16", "fp8"},
})

-- per precision, the fastest recomputation choice that fits (or the
-- smallest footprint when none does): every choice is looked at, those
-- that do not fit too, so each is one plan rather than a ranked sweep
local best = {}
for _, precision in ipairs(a.precisions) do
  for _, recompute in ipairs{"none", "selective", "full"} do
    local p = tplan.plan{
      model = a.model, gpu = a.gpu, gpus = a.gpus, zero = a.zero, seq = a.seq,
      tokens = a.tokens, global_batch_tokens = a.global_batch_tokens,
      optimizer = a.optimizer, precision = precision, recompute = recompute,
      micro_batch = "max",
    }
    local b = best[precision]
    if not b or (p.fits and (not b.fits or p.time_h < b.time_h))
       or (not p.fits and not b.fits and p.total_bytes < b.total_bytes) then
      best[precision] = p
    end
  end
end
local rows = {}
for _, name in ipairs(a.precisions) do rows[#rows + 1] = best[name] end
tplan.print_table(rows, {
  {"precision", "precision"}, {"recompute", "recompute"},
  {"weights GiB", function(p) return tplan.gib(p.weights_bytes) end},
  {"grads GiB", function(p) return tplan.gib(p.grads_bytes) end},
  {"optim GiB", function(p) return tplan.gib(p.optimizer_bytes) end},
  {"act GiB", function(p) return tplan.gib(p.activations_bytes) end},
  {"total GiB", function(p) return tplan.gib(p.total_bytes) end},
  {"fits", function(p) return tostring(p.fits) end},
  {"max mb", "max_micro_batch"},
  {"tok/s", "tokens_per_s", "%.0f"}, {"mfu", "mfu", "%.3f"},
  {"days", function(p) return p.time_h / 24 end, "%.1f"},
  {"cost $", "cost_usd", "%.0f"},
})
print(("%s on %d x %s, ZeRO-%d, seq %d, %s tokens per step")
      :format(a.model, a.gpus, a.gpu, a.zero, a.seq, tplan.human(a.global_batch_tokens)))
