-- keep = "all" benchmark: a 9,830,400-configuration Llama-3-8B space, every
-- plan kept (equivalent twins too) and ranked; nothing saved. Prints the
-- plans kept and the sweep's seconds (walk, buffers and ranking); run it
-- under /usr/bin/time for the wall time and peak memory:
--
--   /usr/bin/time -f "%e s %M KB" tplan run tests/bench/keep_all_bench.lua --threads 2
--
-- `-- pue=1` shrinks the space 25-fold (393,216 configurations). With
-- --db or --csv the plans stream into the file as the sweep walks (more
-- than `ranked` are kept; `-- ranked=N` sets it, default 1,000,000):
--
--   /usr/bin/time -f "%e s %M KB" tplan run tests/bench/keep_all_bench.lua --threads 2 --db plans.db
--
-- scripts/bench_keep_all.sh runs it at `-- pue=1` (393,216 plans, 59% of
-- them do not fit) with `-- out=` saying how the plans are written:
--   none (default), db, csv: nothing here (tplan run --db/--csv writes)
--   save: res:save(path)   rcsv: res:csv(path)   (`-- path=FILE`)
-- `-- prices=N overlaps=N` take the first N of the four prices and
-- overlaps (its callgrind runs: `-- pue=1 prices=1 overlaps=2`, 49,152
-- plans, the same fraction of them unfit: neither axis reaches memory).
local a = tplan.args(arg, {pue = 25, ranked = 1000000, out = "none",
                           path = "/tmp/tplan_keep_all_bench",
                           prices = 4, overlaps = 4})
local function first(list, n)
  local t = {}
  for i = 1, math.min(n, #list) do t[i] = list[i] end
  return t
end
local pue = {}
-- (`-- pue=255`: 100,270,080 configurations, PUE 1.04 to 10)
local step = a.pue <= 25 and 0.1 or 9 / a.pue
for i = 1, a.pue do pue[i] = 1.0 + step * i end

local res = tplan.sweep{
  name = "keep_all_bench", model = "llama3-8b", gpu = "h100-sxm", tokens = 1e12,
  axes = {
    gpus = {8, 16, 32, 64, 128, 256, 512, 1024},
    zero = {0, 1, 2, 3}, tp = {1, 2, 4, 8},
    seq = {2048, 4096, 8192, 16384},
    micro_batch = {1, 2, 3, 4, 6, 8, 12, 16},
    recompute = {"none", "selective", "full"},
    overlap = first({0, 0.25, 0.5, 0.75}, a.overlaps),
    price = first({1, 2, 3, 4}, a.prices),
    precision = {"mixed-bf16", "fp8"},
    pue = pue,
  },
  keep = "all", keep_equivalents = true, ranked = a.ranked,
}
if a.out == "save" then res:save(a.path) end
if a.out == "rcsv" then res:csv(a.path) end
local st = res:stats()
print(string.format("%d plans kept, sweep %.2f s, %.2f M kept/s", st.kept,
                    st.seconds, st.kept / st.seconds / 1e6))
