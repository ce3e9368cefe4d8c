-- res:robustness() on issue 33's Mixtral sweep, run through the real
-- binary by tests/test_lua.sh: EP 1 is first at moe_imbalance's default
-- for Mixtral's aux-loss router, 1.52 (issue 34; 1.25 in issue 33), and
-- an EP > 1 plan at 1.0; an assumption the script sets is not
-- tried. Fitting plans only (limits), so every ranking agrees.
local n = 0
local function check(cond, what)
  n = n + 1
  if not cond then error("check failed: " .. what, 2) end
end

local function mixtral(extra)
  local t = {
    name = "mixtral", model = "mixtral-8x7b", gpu = "h100-sxm", gpus = 64,
    seq = 4096, global_batch = 512, tokens = 1e12, precision = "mixed-bf16",
    axes = {tp = {1, 2, 4, 8}, pp = {1, 2, 4}, ep = {1, 2, 4, 8}, zero = {1, 3},
            micro_batch = {1, 2, 4}},
    rank = {"time_h"}, keep = 20, limits = {fits = true},
  }
  for k, v in pairs(extra or {}) do t[k] = v end
  return tplan.sweep(t)
end

local res = mixtral()
local r = res:robustness()
check(r.holds == false, "the ranking does not hold")
check(r.first.rank == 1 and r.first.fits and r.first.ep == 1,
      "the first plan is rank 1, fits, EP 1")
local flip
for _, f in ipairs(r.flips) do
  if f.field == "moe_imbalance" then flip = f end
end
check(flip, "moe_imbalance is a flip")
check(flip.value == 1.0 and flip.default == 1.52, "at 1.0, from 1.52")
check(flip.top.ep > 1 and flip.top.fits, "an EP > 1 plan that fits is first at 1.0")
check(flip.top.moe_imbalance == 1.0, "the top plan is shown at the flip's value")
-- at 1.25 (issue 33) EP 8 was 3% faster; from 1.52 an EP 4 plan wins
-- at 1.0 by 0.1%: less time, under a tenth
check(flip.delta < 0 and flip.delta > -0.1,
      "less time: " .. flip.delta)
check(flip.first_fits == true, "rank 1 still fits at 1.0")
local names = {}
for _, c in ipairs(r.checked) do names[c.field] = c end
check(names.moe_imbalance and names.moe_imbalance.lo == 1.0 and
      names.moe_imbalance.hi == 1.72, "moe_imbalance checked over 1.0-1.72")
check(not names.tp_overlap or names.tp_overlap.source:find("MODEL.md", 1, true),
      "sources point into MODEL.md")
check(r.band.checked and r.band.second and r.band.second.rank > 1,
      "the runner-up's band was compared")
-- 20 plans, then 20 for each end of each assumption tried
check(r.evaluations > 20 and r.evaluations % 20 == 0,
      "evaluations: " .. r.evaluations)
local top5 = res:robustness{top = 5}
check(top5.evaluations % 5 == 0 and top5.evaluations < r.evaluations,
      "top = 5 evaluates 5 plans")

-- set by the script: no longer an assumption
local set = mixtral{moe_imbalance = 1.25}:robustness()
for _, f in ipairs(set.flips) do
  check(f.field ~= "moe_imbalance", "a given moe_imbalance is not tried")
end
for _, c in ipairs(set.checked) do
  check(c.field ~= "moe_imbalance", "a given moe_imbalance is not checked")
end

local ok, err = pcall(res.robustness, res, {tops = 3})
check(not ok and err:find("tops", 1, true), "an unknown key is named: " .. tostring(err))

print("ok " .. n .. " checks")
