-- Every error path of the Lua API with its message, through the real
-- binary. Each error must carry the caller's file:line and name the
-- field and the value (DESIGN.md: one line naming the bad field or value).
local n = 0
local function expect(f, msg)
  local line = debug.getinfo(2, "l").currentline
  local ok, err = pcall(f)
  n = n + 1
  local want = ("%s:%d: %s"):format(arg[0], line, msg)
  if ok then error(("line %d: no error, wanted: %s"):format(line, msg), 2) end
  if err ~= want then
    error(("got [%s] want [%s]"):format(tostring(err), want), 2)
  end
end

local M = "tplan.model: "
expect(function() tplan.model "nope" end, M .. "unknown model preset (model=nope); see `tplan models`")
expect(function() tplan.model{layers = 2} end, M .. "a custom model needs layers, hidden and heads (or a preset, or params)")
expect(function() tplan.model{layers = 2, hidden = 64, heads = 3} end, M .. "heads must divide hidden (hidden=64, heads=3)")
expect(function() tplan.model{layers = 2, hidden = 64, heads = 4, kv_heads = 3} end, M .. "kv_heads must divide heads (heads=4, kv_heads=3)")
expect(function() tplan.model{layers = 2, hidden = 64, heads = 4, block_norms = 3} end, M .. "block_norms must be 2 or 4 (block_norms=3)")
expect(function() tplan.model{layers = 2, hidden = 64, heads = 4, block_norms = 3.5} end, M .. "field 'block_norms' must be an integer (block_norms=3.5)")
expect(function() tplan.model{layers = 0, hidden = 64, heads = 4} end, M .. "layers must be in [1, 100000] (layers=0)")
expect(function() tplan.model{layerz = 2} end, M .. "unknown field 'layerz': did you mean layers?")
-- a name the model-field table holds (experts) is suggested too
expect(function() tplan.model{preset = "mixtral-8x7b", expert = 16} end, M .. "unknown field 'expert': did you mean experts, expert_ffn or shared_experts?")
expect(function() tplan.model(5) end, M .. "expects a preset name or a table of fields (got number)")
expect(function() tplan.model{preset = "gpt2", mlp = "relu"} end, M .. "mlp must be 'gelu' or 'swiglu' (mlp=relu)")
expect(function() tplan.model{preset = "gpt2", params = 5} end, M .. "give a preset or params, not both (preset=gpt2)")
expect(function() tplan.model{params = 5, hidden = 8} end, M .. "'hidden' describes a transformer, but 'params' makes a generic model")
expect(function() tplan.model{preset = "gpt2", dropout = 1} end, M .. "dropout must be in [0, 0.99] (dropout=1)")
expect(function() return tplan.model("gpt2").nosuch end, "tplan.model has no field 'nosuch'")

local G = "tplan.gpu: "
expect(function() tplan.gpu "nope" end, G .. "unknown GPU (gpu=nope); see `tplan gpus`")
expect(function() tplan.gpu{memory_gib = 10} end, G .. "a GPU needs a name (or a base)")
expect(function() tplan.gpu{base = "a100-80g", memory_gb = 8} end, G .. "unknown field 'memory_gb': did you mean memory_gib?")
expect(function() tplan.gpu{base = "a100-80g", price = -1} end, G .. "price must be in [0, 1e+06] (price=-1)")
expect(function() tplan.gpu{base = "a100-80g", memory_bytes = "lots"} end, G .. "field 'memory_bytes' must be an integer (got string)")
expect(function() tplan.gpu(true) end, G .. "expects a GPU name or a table of fields (got boolean)")
expect(function() return tplan.gpu("h100-sxm").nosuch end, "tplan.gpu has no field 'nosuch'")

local P = "tplan.plan: "
expect(function() tplan.plan{} end, P .. "field 'model' must be a tplan.model or a preset name (got nil)")
expect(function() tplan.plan{model = 3} end, P .. "field 'model' must be a tplan.model or a preset name (got number)")
expect(function() tplan.plan{model = "gpt2", gpu = {}} end, P .. "field 'gpu' must be a tplan.gpu or a GPU name (got table)")
expect(function() tplan.plan{model = "gpt2", gpus = 0} end, P .. "gpus: 0: out of range (valid: an integer from 1 to 10000000)")
expect(function() tplan.plan{model = "gpt2", gpus = 3.5} end, P .. "gpus: 3.5: not an integer (valid: an integer from 1 to 10000000)")
expect(function() tplan.plan{model = "gpt2", gpus = math.huge} end, P .. "gpus: inf: not an integer (valid: an integer from 1 to 10000000)")
expect(function() tplan.plan{model = "gpt2", gpus = "8 GPUs"} end, P .. "gpus: 8 GPUs: not an integer (valid: an integer from 1 to 10000000)")
expect(function() tplan.plan{model = "gpt2", gpus = "x"} end, P .. "gpus: x: not an integer (valid: an integer from 1 to 10000000)")
expect(function() tplan.plan{model = "gpt2", precision = "fp9"} end, P .. "precision: fp9: unknown name (valid: fp32, amp-bf16, amp-fp16, mixed-bf16, mixed-fp16, bf16, fp8)")
expect(function() tplan.plan{model = "gpt2", optimizer = "sgdd"} end, P .. "optimizer: sgdd: unknown name (valid: adamw, adam, sgd, sgd-momentum, adafactor, lion, adamw-8bit, adagrad, rmsprop, adafactor-unfactored, paged-adamw-8bit, paged-adamw-32bit)")
expect(function() tplan.plan{model = "gpt2", tp = 5, gpus = 5} end, P .. "tp must divide heads (heads=12, tp=5)")
expect(function() tplan.plan{model = "gpt2", tp = 5} end, P .. "tp*pp must divide gpus (gpus=1, tp=5, pp=1)")
expect(function() tplan.plan{model = "gpt2", zero = 4} end, P .. "zero: 4: out of range (valid: an integer from 0 to 3)")
expect(function() tplan.plan{model = "gpt2", sp = 1} end, P .. "sp: 1: not a boolean (valid: true, false)")
expect(function() tplan.plan{model = "gpt2", micro_batch = "most"} end, P .. "micro_batch: most: not an integer (valid: an integer from 1 to 100000000, or max)")
expect(function() tplan.plan{model = "gpt2", [1] = 3} end, P .. "fields are named: got a number key")
expect(function() tplan.plan{model = "gpt2", warmup = "5 parsecs"} end, P .. "warmup: 5 parsecs: not a warmup (valid: N or Nsteps, Ntokens, Nepochs, or P% below 100% (N up to 1e15))")
expect(function() tplan.plan{model = "gpt2", price = 0} end, P .. "price: 0: out of range (valid: a number from 1e-09 to 1000000)")
expect(function() tplan.plan{model = "gpt2", pue = 0.5} end, P .. "pue: 0.5: out of range (valid: a number from 1 to 10)")
expect(function() tplan.plan{model = "gpt2", seqq = 5} end, P .. "unknown field 'seqq': did you mean seq? (tplan fields lists them)")
-- a prefix of a field counts as close
expect(function() tplan.plan{model = "gpt2", lora = 16} end, P .. "unknown field 'lora': did you mean lora_rank, lora_targets or lora_dropout? (tplan fields lists them)")
expect(function() tplan.plan{model = "gpt2", zzzzzzzz = 5} end, P .. "unknown field 'zzzzzzzz' (tplan fields lists them)")
expect(function() tplan.plan "gpt2" end, "bad argument #1 to 'plan' (table expected, got string)")

local S = "tplan.sweep: "
expect(function() tplan.sweep{model = "gpt2", axes = {bogus = {1}}} end, S .. "axes.bogus: not a plan field (tplan fields lists the axes)")
expect(function() tplan.sweep{model = "gpt2", axes = {tp = {}}} end, S .. "axes.tp needs 1 to 256 values (got 0)")
expect(function() tplan.sweep{model = "gpt2", axes = {tp = {1, "a"}}} end, S .. "tp: a: not an integer (valid: an integer from 1 to 10000000)")
expect(function() tplan.sweep{model = "gpt2", axes = {tp = {0}}} end, S .. "tp: 0: out of range (valid: an integer from 1 to 10000000)")
expect(function() tplan.sweep{model = "gpt2", axes = {tp = {1.5}}} end, S .. "tp: 1.5: not an integer (valid: an integer from 1 to 10000000)")
expect(function() tplan.sweep{model = "gpt2", axes = {zero = {4}}} end, S .. "zero: 4: out of range (valid: an integer from 0 to 3)")
expect(function() tplan.sweep{model = "gpt2", axes = {global_batch_tokens = {1e20}}} end, S .. "global_batch_tokens: 1e+20: out of range (valid: a number from 1 to 1e+15)")
expect(function() tplan.sweep{model = "gpt2", axes = {lr = {1e6}}} end, S .. "lr: 1000000: out of range (valid: a number from 1e-12 to 100)")
expect(function() tplan.sweep{model = "gpt2", axes = {overlap = {1.5}}} end, S .. "overlap: 1.5: out of range (valid: a number from 0 to 1)")
expect(function() tplan.sweep{model = "gpt2", axes = {global_batch = {64}, global_batch_tokens = {1e6}}} end, S .. "axes.global_batch and axes.global_batch_tokens both set the global batch: vary one")
expect(function() tplan.sweep{model = "gpt2", axes = {gpu = {tplan.gpu{base = "h100-sxm", price = 1}, tplan.gpu{base = "h100-sxm", price = 2}}}} end, S .. "axes.gpu has two different GPUs named 'h100-sxm': give each a name of its own")
-- every figure counts, the stack's too (the BLAS workspace, NVLS channels)
expect(function() tplan.sweep{model = "gpt2", axes = {gpu = {tplan.gpu{base = "a100-80g", name = "x", blas_ws_mib = 64}, tplan.gpu{base = "a100-80g", name = "x"}}}} end, S .. "axes.gpu has two different GPUs named 'x': give each a name of its own")
expect(function() tplan.sweep{model = "gpt2", axes = {gpu = {tplan.gpu{base = "a100-80g", name = "x", nvls_channels = 16}, tplan.gpu{base = "a100-80g", name = "x"}}}} end, S .. "axes.gpu has two different GPUs named 'x': give each a name of its own")
expect(function() tplan.sweep{model = "gpt2", name = ("x"):rep(64)} end, S .. "name is longer than 63 bytes")
expect(function() tplan.sweep{model = "gpt2", axes = {model = {"gpt2"}}} end, S .. "give model or axes.model, not both")
expect(function() tplan.sweep{axes = {model = {"gpt2", tplan.model{preset = "gpt2", layers = 6}}}} end, S .. "axes.model has two different models named 'gpt2': give each a name of its own")
expect(function() tplan.sweep{axes = {model = {"nosuchmodel"}}} end, S .. "unknown model preset (model=nosuchmodel); see `tplan models`")
expect(function() tplan.sweep{axes = {model = {7}}} end, S .. "axes.model takes preset names or tplan.model values (got number)")
expect(function() tplan.sweep{gpus = 8} end, S .. "field 'model' must be a tplan.model or a preset name (got nil)")
expect(function() tplan.sweep{model = "gpt2", axes = {micro_batch = {"x"}}} end, S .. "micro_batch: x: not an integer (valid: an integer from 1 to 100000000, or max)")
expect(function() tplan.sweep{model = "gpt2", axes = {gpu = {"zz"}}} end, S .. "unknown GPU (gpu=zz); see `tplan gpus`")
expect(function() tplan.sweep{model = "gpt2", axes = {precision = {"fp9"}}} end, S .. "precision: fp9: unknown name (valid: fp32, amp-bf16, amp-fp16, mixed-bf16, mixed-fp16, bf16, fp8)")
expect(function() tplan.sweep{model = "gpt2", axes = {sp = {1}}} end, S .. "sp: 1: not a boolean (valid: true, false)")
expect(function() tplan.sweep{model = "gpt2", axes = {price = {-2}}} end, S .. "price: -2: out of range (valid: a number from 1e-09 to 1000000)")
expect(function() tplan.sweep{model = "gpt2", axes = 3} end, S .. "field 'axes' must be a table (got number)")
expect(function() tplan.sweep{model = "gpt2", axes = {[1] = 2}} end, S .. "axes are named by plan fields")
expect(function() tplan.sweep{model = "gpt2", limits = {fitz = true}} end, "tplan.sweep limits: unknown field 'fitz': did you mean fits?")
expect(function() tplan.sweep{model = "gpt2", limits = {min_headroom = 2}} end, "tplan.sweep limits: min_headroom must be in [0, 0.99] (min_headroom=2)")
expect(function() tplan.sweep{model = "gpt2", limits = 1} end, S .. "field 'limits' must be a table (got number)")
expect(function() tplan.sweep{model = "gpt2", rank = {"speed"}} end, S .. "unknown objective (rank=speed); expected cost_usd, time_h, gpu_hours, energy_kwh, step_time_s, tokens_per_s, mfu, total_bytes, headroom_bytes, gpus, micro_batch, global_batch or score")
expect(function() tplan.sweep{model = "gpt2", rank = {"score"}} end, S .. "rank 'score' needs a score function")
expect(function() tplan.sweep{model = "gpt2", rank = {}} end, S .. "rank takes 1 to 4 objectives (got 0)")
expect(function() tplan.sweep{model = "gpt2", rank = 7} end, S .. "field 'rank' must be a list of objectives (got number)")
expect(function() tplan.sweep{model = "gpt2", keep = "some"} end, S .. "keep must be a number, \"fits\" or \"all\" (keep=some)")
expect(function() tplan.sweep{model = "gpt2", keep = 0} end, S .. "keep must be in [1, 10000000] (keep=0)")
expect(function() tplan.sweep{model = "gpt2", where = 3} end, S .. "field 'where' must be an expression (a string) or a function")
expect(function() tplan.sweep{model = "gpt2", where = "mfu >> 0.4"} end, S .. "where: 'mfu >> 0.4': expected a field, a number or '(' instead of '>' at character 6")
expect(function() tplan.sweep{model = "gpt2", where = "precision == 'bf61'"} end, S .. "where: 'precision == 'bf61'': 'bf61' is none of the field's names at character 14 (precision: fp32, amp-bf16, amp-fp16, mixed-bf16, mixed-fp16, bf16, fp8)")
expect(function() tplan.sweep{model = "gpt2", score = 3} end, S .. "field 'score' must be a function")
expect(function() tplan.sweep{model = "gpt2", staged = "no"} end, S .. "field 'staged' must be a boolean (got string)")
expect(function() tplan.sweep{model = "gpt2", threads = 0} end, S .. "threads must be in [1, 256] (threads=0)")
expect(function() tplan.sweep{model = "gpt2", pareto = "yes"} end, S .. "field 'pareto' must be a boolean (got string)")
-- a sweep that keeps nothing says why
expect(function() tplan.sweep{model = "gpt2", name = "bad", axes = {tp = {5, 7}, gpus = {5, 7, 35}}} end, S .. "sweep 'bad': none of its 6 configurations is valid (4 x tp must divide heads (heads=12, tp=5); 2 x tp*pp must divide gpus (gpus=5, tp=7, pp=1))")
expect(function() tplan.sweep{model = "gpt2", name = "lim", axes = {gpus = {1, 2, 4}}, limits = {max_cost_usd = 1e-6}} end, S .. "sweep 'lim': none of its 3 valid plans passes the limits (3 by max_cost_usd); loosen limits, where or keep")
expect(function() tplan.sweep{model = "gpt2", name = "w", axes = {gpus = {1, 2}}, where = function(p) return false end} end, S .. "sweep 'w': none of its 2 valid plans passes the limits (2 by where); loosen limits, where or keep")
-- a product of large axis values: refused with its factors, never wrapped
expect(function() tplan.sweep{model = "gpt2", name = "big", axes = {gpus = {10000000}, micro_batch = {100000000}, accum = {100000000}}} end, S .. "sweep 'big': none of its 1 configurations is valid (1 x tokens per step out of range (micro_batch=100000000, dp=10000000, accum=100000000, seq=1024))")
expect(function() tplan.sweep{model = "gpt2", nmae = "x"} end, S .. "unknown field 'nmae' (tplan fields lists them)")
-- the sweep's own fields and the plan's alike
expect(function() tplan.sweep{model = "gpt2", kep = 5} end, S .. "unknown field 'kep': did you mean keep or ep? (tplan fields lists them)")
-- a hook's own error keeps the hook's line
expect(function() tplan.sweep{model = "gpt2", axes = {tp = {1, 2}}, where = function(p) return p.nosuch end} end, "a plan has no field 'nosuch'")
expect(function() tplan.sweep{model = "gpt2", axes = {tp = {1, 2}}, where = function(p) error("boom") end} end, "boom")
expect(function() tplan.sweep{model = "gpt2", axes = {tp = {1, 2}}, score = function(p) return "x" end} end, S .. "score must return a number (got string)")
local kept
tplan.sweep{model = "gpt2", where = function(p) kept = p; return true end}
expect(function() return kept.gpus end, "a plan view is valid only inside its hook (use p:table() to keep one)")

local R = "tplan.result"
local res = tplan.sweep{model = "gpt2"}
expect(function() res:top(-1) end, R .. ":top: n must be >= 0 (n=-1)")
expect(function() res:pareto() end, R .. ":pareto: give objectives, or sweep with pareto = true")
expect(function() res:pareto{"cost_usd"} end, R .. ":pareto: give 2 to 4 objectives")
expect(function() res:pareto{"cost_usd", {}} end, R .. ":pareto: objective 2 must be a name (got table)")
expect(function() res:top(-2 ^ 40) end, R .. ":top: n must be >= 0 (n=-1099511627776)")
expect(function() res:pareto{"cost_usd", "nope"} end, R .. ":pareto: unknown objective (rank=nope); expected cost_usd, time_h, gpu_hours, energy_kwh, step_time_s, tokens_per_s, mfu, total_bytes, headroom_bytes, gpus, micro_batch, global_batch or score")
expect(function() res:csv("/nonexistent/dir/x.csv") end, R .. ":csv: cannot create /nonexistent/dir/x.csv: No such file or directory")
expect(function() res:csv("") end, R .. ":csv: csv path is empty")
expect(function() res.count(5) end, "bad argument #1 to 'count' (tplan.result expected, got number)")

local L = "tplan.lr_at: "
expect(function() tplan.lr_at({peak = 1e-3}, "x") end, "bad argument #2 to 'lr_at' (number expected, got string)")
expect(function() tplan.lr_at({}, 3) end, L .. "field 'peak' is required")
expect(function() tplan.lr_at({peak = 1e-3, kind = "zigzag"}, 3) end, L .. "unknown schedule (schedule=zigzag); expected constant, linear, cosine, wsd or inverse-sqrt")
expect(function() tplan.lr_at({peak = 1e-3, decay_fraction = 2}, 3) end, L .. "decay_fraction must be in [0, 1] (decay_fraction=2)")

expect(function() tplan.gpu{base = "h100-sxm", tdp_w = 1e6} end, "tplan.gpu: tdp_w must be in [0, 1e6) watts (gpu=h100-sxm, tdp_w=1e+06)")
print(("ok %d error paths"):format(n))
