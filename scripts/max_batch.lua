-- The largest micro-batch that fits, by model size and sequence length:
-- the table the GPU workshop guide charts for 1B/7B/13B/70B models on an
-- A100-80GB "with mixed precision + attention checkpointing"
-- (the GPU workshop guide, docs/MODEL.md §4.4), once on one GPU as the
-- guide draws it and once with ZeRO-3 over 8 GPUs (the guide's third way
-- to raise the maximum). A 0 means not even one sample fits; the reason,
-- at the shortest such sequence, follows the table.
--
--   tplan run max_batch [-- gpu=h100-sxm seqs=1024,4096 ...]
local a = tplan.args(arg, {
  gpu = "a100-80g", precision = "mixed-bf16", recompute = "selective",
  attention = "eager", optimizer = "adamw",
  seqs = {512, 1024, 2048, 4096, 8192, 16384, 32768},
  models = {"llama3.2-1b", "llama2-7b", "llama2-13b", "llama2-70b"},
  sharded_gpus = 8,
})

-- Llama-3.2-1B (1.24B parameters), from its published configuration
-- (huggingface.co/meta-llama/Llama-3.2-1B, config.json): 16 layers,
-- hidden 2048, 32 heads, 8 KV heads, SwiGLU 8192, vocab 128256, tied.
local extra = {
  ["llama3.2-1b"] = tplan.model{name = "llama3.2-1b", layers = 16, hidden = 2048,
    heads = 32, kv_heads = 8, ffn = 8192, vocab = 128256, mlp = "swiglu",
    norm = "rmsnorm", pos = "rotary", tied = true, bias = false, max_seq = 131072},
}

-- One plan per cell: the table shows every cell, those where nothing
-- fits too, so it asks for each plan rather than ranking a sweep.
local function table_for(gpus, zero)
  local rows, why = {}, {}
  for _, name in ipairs(a.models) do
    local m = extra[name] or tplan.model(name)
    local row = {model = name, params = m.params}
    for _, seq in ipairs(a.seqs) do
      local p = tplan.plan{
        model = m, gpu = a.gpu, gpus = gpus, zero = zero, seq = seq,
        precision = a.precision, recompute = a.recompute, attention = a.attention,
        optimizer = a.optimizer, micro_batch = "max",
      }
      row[seq] = p.fits and p.max_micro_batch or 0
      -- the reason at the shortest sequence where not one sample fits
      if not p.fits and not why[name] then
        why[name] = ("seq %d: %s"):format(seq, p.warnings[1])
      end
    end
    rows[#rows + 1] = row
  end
  local cols = {{"model", "model"}, {"params", function(r) return ("%.2fB"):format(r.params / 1e9) end}}
  for _, s in ipairs(a.seqs) do cols[#cols + 1] = {"seq " .. s, s} end
  print(("max micro-batch on %s, %d GPU(s), ZeRO-%d, %s, %s, recompute %s, %s attention")
        :format(a.gpu, gpus, zero, a.precision, a.optimizer, a.recompute, a.attention))
  tplan.print_table(rows, cols)
  for _, name in ipairs(a.models) do
    if why[name] then print(("  %s, %s"):format(name, why[name])) end
  end
  print()
end

table_for(1, 0)
table_for(a.sharded_gpus, 3)
