-- keep = "all" output paths (scripts/bench_keep_all.sh): the 393,216-plan
-- Llama-3-8B space of keep_all_bench.lua at one PUE (59% of the plans do
-- not fit), every plan kept, then written the way `-- out=` says:
--   none   nothing (the walk alone: what the others are measured against)
--   db     nothing here: tplan run --db writes them
--   csv    nothing here: tplan run --csv writes them
--   save   res:save(path)
--   rcsv   res:csv(path)
-- `-- ranked=1000` makes --db and --csv stream (the sweep keeps more).
--   tplan run tests/bench/keep_all_paths.lua -- out=save path=/tmp/x.db
local a = tplan.args(arg, {out = "none", path = "/tmp/tplan_keep_all_paths",
                          ranked = 1000000})

local res = tplan.sweep{
  name = "keep_all_paths", model = "llama3-8b", gpu = "h100-sxm", tokens = 1e12,
  axes = {
    gpus = {8, 16, 32, 64, 128, 256, 512, 1024},
    zero = {0, 1, 2, 3}, tp = {1, 2, 4, 8},
    seq = {2048, 4096, 8192, 16384},
    micro_batch = {1, 2, 3, 4, 6, 8, 12, 16},
    recompute = {"none", "selective", "full"},
    overlap = {0, 0.25, 0.5, 0.75}, price = {1, 2, 3, 4},
    precision = {"mixed-bf16", "fp8"},
  },
  keep = "all", keep_equivalents = true, ranked = a.ranked,
}
local rows = res:stats().kept
if a.out == "save" then rows = res:save(a.path) end
if a.out == "rcsv" then res:csv(a.path) end
print(string.format("%d plans kept", rows))
