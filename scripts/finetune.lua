-- Fine-tuning on one GPU: for a model and the GPUs people rent, the
-- cheapest way that fits (full fine-tuning, full with the optimizer
-- offloaded to the CPU, LoRA, QLoRA), with its largest micro-batch,
-- throughput and the cost of one epoch of the dataset.
--
--   tplan run scripts/finetune.lua [-- model=llama2-13b dataset=52002 seq=512]
--
-- The dataset defaults to Alpaca's 52,002 instructions at 512 tokens
-- (Taori et al. 2023, the Stanford Alpaca README). LoRA and QLoRA use
-- rank 16 on every linear of a block (QLoRA's targets; docs/MODEL.md
-- section 2.5); QLoRA stores the base in NF4 with double quantization and
-- pages its 32-bit AdamW states as the QLoRA scripts do.
local a = tplan.args(arg, {
  model = "llama3.1-8b", seq = 512, dataset = 52002, rank = 16,
  gpus = {"rtx4090", "l40s", "a100-80g", "h100-sxm"},
})

local methods = {
  {name = "full", cfg = {}},
  {name = "full, optimizer on CPU", cfg = {zero = 2, offload_optimizer = "cpu"}},
  {name = "LoRA", cfg = {lora_rank = a.rank}},
  {name = "QLoRA", cfg = {lora_rank = a.rank, base_precision = "nf4",
                          double_quant = true, optimizer = "paged-adamw-32bit"}},
}

local function plan_for(gpu, method, recompute)
  local cfg = {model = a.model, gpu = gpu, seq = a.seq, finetune = true,
               dataset = a.dataset, micro_batch = "max", recompute = recompute}
  for k, v in pairs(method.cfg) do cfg[k] = v end
  return tplan.plan(cfg)
end

local rows = {}
for _, gpu in ipairs(a.gpus) do
  local best
  for _, method in ipairs(methods) do
    for _, recompute in ipairs({"none", "full"}) do
      local p = plan_for(gpu, method, recompute)
      if p.fits and (not best or p.cost_usd < best.plan.cost_usd) then
        best = {plan = p, method = method.name}
      end
    end
  end
  rows[#rows + 1] = best or {gpu = gpu, method = "nothing fits"}
  if best then best.gpu = gpu end
end

print(("%s, %s samples of %d tokens per epoch: the cheapest plan that fits on one GPU")
      :format(a.model, tplan.human(a.dataset), a.seq))
tplan.print_table(rows, {
  {"gpu", "gpu"}, {"method", "method"},
  {"recompute", function(r) return r.plan and r.plan.recompute or "-" end},
  {"trainable", function(r) return r.plan and tplan.human(r.plan.trainable_params) or "-" end},
  {"GiB", function(r) return r.plan and tplan.gib(r.plan.total_bytes) or "-" end, "%.1f"},
  {"max mb", function(r) return r.plan and r.plan.max_micro_batch or "-" end},
  {"tok/s", function(r) return r.plan and r.plan.tokens_per_s or "-" end, "%.0f"},
  {"h/epoch", function(r) return r.plan and r.plan.time_h or "-" end, "%.2f"},
  {"$/epoch", function(r) return r.plan and r.plan.cost_usd or "-" end, "%.2f"},
})
