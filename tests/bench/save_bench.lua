-- End-to-end writer benchmark: a keep = "all" sweep of 393,216 plans saved
-- with res:save (each kept plan is re-evaluated in full, warnings and
-- all, then written through the writer thread). Run twice by
-- scripts/bench_store.sh, with save=0 and save=1: the difference in wall
-- time is the save.
--
--   tplan run tests/bench/save_bench.lua -- out=/tmp/x.db save=1 [size=small]
local a = tplan.args(arg, {out = "/tmp/tplan_save_bench.db", save = 1, size = "full"})
local small = a.size == "small"

local res = tplan.sweep{
  name = "save_bench", model = "llama3-8b", gpu = "h100-sxm", tokens = 1e12,
  axes = {
    gpus = small and {8, 16} or {8, 16, 32, 64, 128, 256, 512, 1024},
    zero = {0, 1, 2, 3},
    tp = {1, 2, 4, 8},
    seq = small and {4096} or {2048, 4096, 8192, 16384},
    micro_batch = small and {1, 2} or {1, 2, 3, 4, 6, 8, 12, 16},
    recompute = {"none", "selective", "full"},
    overlap = small and {0.5} or {0, 0.25, 0.5, 0.75},
    price = small and {2} or {1, 2, 3, 4},
    precision = small and {"mixed-bf16"} or {"mixed-bf16", "fp8"},
  },
  keep = "all",
  -- every configuration written, its twins too (selective equals none
  -- under flash attention): the row count the figures in docs/benchmarks.md used
  keep_equivalents = true,
}
local rows = 0
if a.save == 1 then rows = res:save(a.out) end
local st = res:stats()
print(string.format("%d plans kept (sweep %.2f s), %d rows saved", st.kept, st.seconds, rows))
