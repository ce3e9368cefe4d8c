-- A sweep far too big to finish in a second: SIGINT must end it cleanly,
-- keep the best plans found so far, and let the script go on.
--
-- Most of its configurations are valid, and the innermost axis (reserve)
-- is read by the memory, so each is a full evaluation: 885M
-- configurations (under the 1e9 that asks for --yes), a minute or more
-- on two cores. Cheap axes there are staged (an `lr` axis once ended a
-- sweep of 97M in under a second) and refused layouts are passed at
-- once, so neither may carry the size.
local reserve = {}
for i = 1, 100 do reserve[i] = i / 500 end
local res = tplan.sweep{
  name = "long", model = "llama3-8b", gpu = "h100-sxm",
  tokens = 1.5e13, global_batch_tokens = 4194304,
  axes = {gpus = {8, 16, 32, 64, 128, 256, 512, 1024},
          tp = {1, 2, 4, 8}, pp = {1, 2, 4, 8}, zero = {0, 1, 2, 3},
          recompute = {"none", "selective", "full"},
          precision = {"mixed-bf16", "bf16", "fp8"},
          seq = {2048, 4096, 8192, 16384}, micro_batch = {1, 2, 4, 8},
          sp = {false, true}, overlap = {0, 0.5, 1},
          nic_gbps = {200, 400, 800, 1600}, price = {2, 2.5, 3, 3.5, 4},
          reserve = reserve},
  rank = {"time_h"}, keep = 10,
}
local s = res:stats()
print(("interrupted %s visited %d of %d kept %d"):format(
  tostring(s.interrupted), s.visited, s.space, res:count()))
