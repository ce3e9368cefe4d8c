-- A keep = "fits"/"all" sweep that keeps more plans than `ranked`: under
-- tplan run --db/--csv its plans stream into them as it walks
-- (tests/test_stream.sh). Arguments: keep, ranked, what (a check to run
-- in the script: "none", "save", "csv", "pareto"), big (1.66M plans
-- kept), pareto (1: a front), flaky (N > 0: a where function that
-- passes its first N calls only, so the two walks disagree).
local a = tplan.args(arg, {keep = "all", ranked = 7, what = "none", big = 0, pareto = 1,
                           flaky = 0})
local axes = {
  gpus = {1, 2, 4, 8}, zero = {0, 1, 2, 3}, seq = {128, 256, 512, 1024},
  micro_batch = {1, 2, 3, 4, 6, 8, 12, 16}, recompute = {"none", "selective", "full"},
}
if a.big == 1 then
  axes.price, axes.pue = {}, {}
  for i = 1, 100 do axes.price[i] = 1 + i / 100 end
  for i = 1, 20 do axes.pue[i] = 1 + i / 100 end
end
local calls = 0
local where = nil
if a.flaky > 0 then
  where = function(p) calls = calls + 1; return calls <= a.flaky end
end
local res = tplan.sweep{
  name = "streamed", model = "gpt2-xl", gpu = "a100-40g", tokens = 1e10,
  axes = axes, keep = a.keep, ranked = a.ranked, pareto = a.pareto == 1,
  rank = {"cost_usd", "time_h"}, where = where,
}
local st = res:stats()
print(("kept %d count %d streamed %s"):format(st.kept, res:count(), tostring(st.streamed)))
if a.what ~= "none" then
  local ok, err = pcall(function()
    if a.what == "save" then res:save("x.db")
    elseif a.what == "pareto" then res:pareto{"mfu", "total_bytes"}
    else res:csv("x.csv") end
  end)
  print(ok, err)
end
