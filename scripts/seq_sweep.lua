-- Sequence-length sweep: how memory, the largest micro-batch and
-- throughput move with context length, with and without recomputation.
--
--   tplan run scripts/seq_sweep.lua [-- model=mistral-7b gpus=16]
local a = tplan.args(arg, {
  model = "llama3-8b", gpu = "h100-sxm", gpus = 8, zero = 3,
  precision = "mixed-bf16", attention = "flash", tokens = 1e11,
  seqs = {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072},
  recompute = {"none", "selective", "full"},
})

-- every cell, those that do not fit too (a table of memory against
-- context, not a ranking): one plan each
local by = {}
for _, seq in ipairs(a.seqs) do
  by[seq] = {seq = seq}
  for _, recompute in ipairs(a.recompute) do
    by[seq][recompute] = tplan.plan{
      model = a.model, gpu = a.gpu, gpus = a.gpus, zero = a.zero,
      precision = a.precision, attention = a.attention, tokens = a.tokens,
      micro_batch = 1, seq = seq, recompute = recompute,
    }
  end
end
local rows = {}
for _, s in ipairs(a.seqs) do rows[#rows + 1] = by[s] end
local cols = {{"seq", "seq"}}
for _, r in ipairs(a.recompute) do
  cols[#cols + 1] = {r .. " GiB", function(row) return tplan.gib(row[r].total_bytes) end}
  cols[#cols + 1] = {r .. " max mb", function(row) return row[r].max_micro_batch end}
end
cols[#cols + 1] = {"tok/s (mb 1, " .. a.recompute[#a.recompute] .. ")",
                   function(row) return row[a.recompute[#a.recompute]].tokens_per_s end, "%.0f"}
print(("%s on %d x %s, ZeRO-%d, %s, %s attention; per-GPU bytes at micro-batch 1")
      :format(a.model, a.gpus, a.gpu, a.zero, a.precision, a.attention))
tplan.print_table(rows, cols)
