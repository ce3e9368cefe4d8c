-- The cost of one plan evaluation, for scripts/bench_eval_cost.sh, which
-- runs this under callgrind on one thread and divides the instructions
-- (less a one-configuration run's: startup) by the evaluations.
--
--   tplan run tests/bench/eval_cost.lua --threads 1 -- space=nic|pue|one [walk=reach|canonical]
--
-- Issue 38's two spaces: Llama-3-8B on H100s over GPU count, TP, PP, ZeRO
-- stage, precision, recomputation and micro-batch, plus
--   nic: the inter-node network speed (an axis that reaches only the
--        communication time: a staged re-evaluation);
--   pue: the power usage effectiveness, the memory reserve and the GPU
--        price in its place (pue and price reach only the run's figures,
--        the reserve the whole plan; in the index's order the reserve is
--        walked inside the price).
-- one: a single configuration of the same model (startup, subtracted).
-- walk=canonical walks the axes in the index's order rather than by reach
-- class (issue 38 item 2): the same plans, at a different cost.
local a = tplan.args(arg, {space = "nic", walk = "reach", staged = "true"})

local axes = {
  {"gpus", {8, 16, 32, 64}},
  {"tp", {1, 2, 4, 8}},
  {"pp", {1, 2, 4}},
  {"zero", {0, 1, 2, 3}},
  {"precision", {"mixed-bf16", "fp8"}},
  {"recompute", {"none", "selective", "full"}},
  {"micro_batch", {1, 2, 4, 8}},
}
if a.space == "nic" then
  axes[#axes + 1] = {"nic_gbps", {100, 200, 400, 800}}
elseif a.space == "pue" then
  axes[#axes + 1] = {"pue", {1.1, 1.2, 1.3, 1.4}}
  axes[#axes + 1] = {"reserve", {0, 0.05}}
  axes[#axes + 1] = {"price", {2, 3}}
elseif a.space == "one" then
  axes = {{"gpus", {8}}}
else
  error("space: nic, pue or one (got " .. tostring(a.space) .. ")")
end
local spec = {name = "eval-cost-" .. a.space, model = "llama3-8b", gpu = "h100-sxm",
              global_batch_tokens = 4194304, tokens = 1.5e13, seq = 4096,
              axes = {}, rank = {"time_h"}, keep = 10, walk = a.walk,
              staged = a.staged ~= "false"}
for _, ax in ipairs(axes) do spec.axes[ax[1]] = ax[2] end
local res = tplan.sweep(spec)
local s = res:stats()
print(("space %d evaluated %d staged %d untimed %d"):format(s.space, s.evaluated, s.staged,
                                                           s.unfit_untimed or 0))
local top = res:top(1)[1]
if top then print(("top index %d time_h %.17g"):format(top.index, top.time_h)) end
