-- Every input field of the field table (tplan.fields(), the same table as
-- `tplan fields --json`), through the real binary:
--  * one bad value gets the identical message from `tplan calc`,
--    tplan.plan{} and a sweep axis ("FIELD: VALUE: why (valid: ...)");
--  * one good value round-trips: given to calc, tplan.plan{} and a sweep,
--    it comes back under the field's name in calc's JSON "fields", the Lua
--    plan, a CSV file and a result database.
-- A field with no test value below fails the test: adding a field means
-- adding its row here.
-- Usage: tplan run fields.lua -- TPLAN_BINARY TMPDIR
local bin, tmp = arg[1], arg[2]
assert(bin and tmp, "usage: fields.lua TPLAN_BINARY TMPDIR")

local BASE = {model = "gpt2", gpu = "h100-sxm", gpus = 8}
-- input name = {value, expected output (nil: the value), other fields}
local GOOD = {
  model = {"gpt2-medium"}, gpu = {"a100-80g"}, gpus = {16}, tp = {2},
  pp = {2}, vpp = {2, nil, {pp = 2, accum = 4}}, sp = {true, nil, {tp = 2}},
  zero = {2}, precision = {"fp32"}, optimizer = {"sgd"},
  recompute = {"full"}, attention = {"eager"}, profile = {"megatron"},
  seq = {512}, micro_batch = {3}, accum = {3}, global_batch = {64},
  gpus_per_node = {4}, fp32_grads = {true}, fused_loss = {true},
  dropout = {0.05}, batch_norm = {true}, global_batch_tokens = {65536},
  reserve = {0.05}, context_mib = {500}, tokens = {1e9},
  epochs = {2, nil, {dataset = 1000}}, dataset = {1000, nil, {epochs = 2}},
  price = {3.5}, nic_gbps = {100}, link_gbs = {200}, overlap = {0.5},
  efficiency = {0.5}, eff_max = {0.7}, eff_h0 = {500}, eff_tok0 = {256},
  attn_eff = {0.2}, fp8_ratio = {0.5}, eff_tp = {0.1}, pue = {1.3},
  power_util = {0.8}, grid = {0.2}, lr = {3e-4},
  lr_base_batch = {256, nil, {lr = 3e-4}},
  lr_rule = {"linear", nil, {lr = 3e-4}}, lr_threshold = {1000},
  lr_cap = {1e-3}, lr_floor = {0.05}, weight_decay = {0.1},
  warmup = {"100steps"}, schedule = {"wsd"}, wsd_decay = {0.2},
  critical_batch_tokens = {1e6}, target_loss = {2.5},
  batch_ramp = {"1000000:2000000,4000000"}, finetune = {true},
  loss_scaling = {false},
  lora_rank = {8}, lora_targets = {"q,v", nil, {lora_rank = 8}},
  lora_dropout = {0.05, nil, {lora_rank = 8}},
  base_precision = {"nf4", nil, {lora_rank = 8}},
  double_quant = {true, nil, {lora_rank = 8, base_precision = "nf4"}},
  offload_optimizer = {"cpu", nil, {zero = 2}},
  offload_params = {"cpu", nil, {zero = 3}},
  host_memory = {512}, pcie_gbs = {20}, nvme_gbs = {7},
  ep = {2, nil, {model = "mixtral-8x7b", seq = 4096}},
  cp = {2}, capacity_factor = {1.5}, moe_imbalance = {1.5},
  moe_overlap = {0.5},
  framework = {"megatron"}, eff_scale = {0.9}, dp_bw_eff = {0.5},
  zero3_bw_eff = {0.5, nil, {zero = 3}},
  time_band_lo = {0.1}, time_band_hi = {0.2},
  alloc_frac = {0.05}, mem_band_lo = {0.02}, mem_band_hi = {0.1},
  calib_params_min = {1e9}, calib_params_max = {1e11},
  calib_gpus_min = {8}, calib_gpus_max = {512},
  calib_seq_min = {1024}, calib_seq_max = {8192},
  calib_time_err = {0.05}, calib_mem_err = {0.02},
  nccl_mib = {500}, grad_bucket_copy = {true},
  reduce_bucket = {1e8, nil, {zero = 1}}, optim_temp = {0.5},
  gather_sets = {3, nil, {zero = 3}}, fused_norm = {true},
  zero12_overlap = {0.5}, tp_overlap = {0.5, nil, {tp = 2}},
  nccl_a2a_mib = {400}, pp_embed_loss = {true, nil, {pp = 2}},
  nccl_nvls_mib = {4}, blas_ws = {true}, set_to_none = {true},
  pp_schedule = {"dualpipe", nil, {pp = 2}},
  comm_sm_share = {0.1, nil, {pp = 2, pp_schedule = "dualpipe"}},
  fit_attention = {"eager"}, fp8_recipe = {"blockwise"},
  recompute_modules = {"layernorm,mlp"},
  fp8_activations = {true, nil, {precision = "fp8"}},
  dora = {true, nil, {lora_rank = 8}}, host_buffer_factor = {1.5},
  etp = {1, nil, {model = "mixtral-8x7b", seq = 4096, tp = 2, ep = 2}},
  pp_first_layers = {4, nil, {pp = 2}}, pp_last_layers = {4, nil, {pp = 2}},
  offload_activations = {0.5}, zero_shard_group = {4, nil, {zero = 3}},
  reshard_after_forward = {false, nil, {zero = 3}},
}

local fields, by_input = tplan.fields(), {}
for _, f in ipairs(fields) do
  if f.input then by_input[f.lua] = f end
end

local failures, checks = 0, 0
local function check(cond, fmt, ...)
  checks = checks + 1
  if not cond then
    failures = failures + 1
    io.stderr:write("FAIL: ", fmt:format(...), "\n")
  end
end

local function text(v)
  if type(v) == "number" then
    return math.type(v) == "integer" and tostring(v) or ("%.17g"):format(v)
  end
  return tostring(v)
end

local function shell_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- `tplan calc` with cfg's fields as --flag=value; returns stdout, stderr
-- and the exit status.
local function calc(cfg, extra)
  local args = {}
  for k, v in pairs(cfg) do
    args[#args + 1] = shell_quote(by_input[k].flag .. "=" .. text(v))
  end
  table.sort(args)
  local cmd = ("%s calc %s %s 2>%s/calc.err"):format(
    shell_quote(bin), table.concat(args, " "), extra or "", tmp)
  local p = io.popen(cmd)
  local out = p:read("a")
  local _, _, rc = p:close()
  local e = io.open(tmp .. "/calc.err"):read("a")
  return out, e, rc
end

local function merged(...)
  local t = {}
  for i = 1, select("#", ...) do
    for k, v in pairs(select(i, ...) or {}) do t[k] = v end
  end
  return t
end

-- the message after the front end's prefix
local function message(err)
  return (tostring(err):gsub("^tplan: ", ""):gsub("^.-:%d+: ", "")
    :gsub("^tplan%.%a+: ", ""):gsub("\n$", ""))
end

-- ---- one bad value, one message --------------------------------------
local function bad_value(f)
  if f.type == "bool" then return "maybe" end
  if f.min then return -1 end -- every numeric input is >= 0
  return "nosuch"
end

for _, f in ipairs(fields) do
  if f.input then
    local bad = bad_value(f)
    local _, calc_err, rc = calc(merged(BASE, {[f.lua] = bad}))
    local want = message(calc_err)
    check(rc == 2, "%s: calc exit %s for %s, want 2", f.name, tostring(rc),
          text(bad))
    check(want:find(f.lua, 1, true) and want:find(text(bad), 1, true),
          "%s: calc message does not name the field and value: %s", f.name,
          want)
    local ok, err = pcall(tplan.plan, merged(BASE, {[f.lua] = bad}))
    check(not ok and message(err) == want,
          "%s: tplan.plan says [%s], calc says [%s]", f.name, message(err), want)
    if f.axis then
      ok, err = pcall(tplan.sweep, merged(BASE, {axes = {[f.lua] = {bad}}}))
      check(not ok and message(err) == want,
            "%s: axis says [%s], calc says [%s]", f.name, message(err), want)
    end
  end
end

-- ---- one good value, round trip --------------------------------------
local function same(got, want)
  if type(want) == "number" then
    return tonumber(got) ~= nil and
      math.abs(tonumber(got) - want) <= 1e-12 * math.abs(want)
  end
  if type(want) == "boolean" then
    return got == want or got == tostring(want) or
      got == (want and 1 or 0) or got == (want and "1" or "0")
  end
  return got == want
end

-- one CSV record of a file with a header: {name = text}
local function csv_row(path)
  local f = assert(io.open(path))
  local data = f:read("a")
  f:close()
  local rows, row, field, i, quoted = {}, {}, {}, 1, false
  while i <= #data do
    local c = data:sub(i, i)
    if quoted then
      if c == '"' and data:sub(i + 1, i + 1) == '"' then
        field[#field + 1] = '"'; i = i + 1
      elseif c == '"' then quoted = false
      else field[#field + 1] = c end
    elseif c == '"' then quoted = true
    elseif c == "," then row[#row + 1] = table.concat(field); field = {}
    elseif c == "\n" then
      row[#row + 1] = table.concat(field); field = {}
      rows[#rows + 1] = row; row = {}
    elseif c ~= "\r" then field[#field + 1] = c end
    i = i + 1
  end
  local t = {}
  for k, name in ipairs(rows[1]) do t[name] = rows[2][k] end
  return t
end

local n = 0
for _, f in ipairs(fields) do
  if f.input then
    local g = GOOD[f.lua]
    check(g ~= nil, "%s: no test value in tests/lua/fields.lua", f.name)
    if g then
      local v, want, extra = g[1], g[2], g[3]
      if want == nil then want = v end
      local cfg = merged(BASE, extra, {[f.lua] = v})
      n = n + 1
      -- calc --json
      local out, err, rc = calc(cfg, ("--json | jq -r '.fields.%s'"):format(f.name))
      out = out:gsub("\n$", "")
      check(rc == 0 and same(out, want), "%s: calc --json gave %s (%s), want %s",
            f.name, out, message(err), text(want))
      -- tplan.plan
      local ok, p = pcall(tplan.plan, cfg)
      check(ok and same(ok and p[f.name], want), "%s: tplan.plan gave %s, want %s",
            f.name, ok and tostring(p[f.name]) or p, text(want))
      -- a sweep (the field as an axis when it can be one), CSV, database
      local spec = merged(cfg, {name = "f" .. n})
      if f.axis then
        spec[f.lua] = nil
        spec.axes = {[f.lua] = {v}}
      end
      local csv, db = ("%s/f%d.csv"):format(tmp, n), ("%s/f%d.db"):format(tmp, n)
      local res = tplan.sweep(spec)
      check(res:count() == 1, "%s: the sweep kept %d plans", f.name, res:count())
      check(same(res:top(1)[1][f.name], want), "%s: sweep plan gave %s",
            f.name, tostring(res:top(1)[1][f.name]))
      res:csv(csv)
      res:save(db)
      local row = csv_row(csv)
      check(same(row[f.name], want), "%s: CSV gave %s, want %s", f.name,
            tostring(row[f.name]), text(want))
      local d = tplan.db.open(db)
      local r = d:query(("SELECT %s AS v FROM plans"):format(f.name))
      check(r[1] and same(r[1].v, want), "%s: database gave %s, want %s",
            f.name, tostring(r[1] and r[1].v), text(want))
      d:close()
    end
  end
end

if failures > 0 then
  error(("%d of %d field checks failed"):format(failures, checks))
end
print(("ok %d field checks, %d inputs round-tripped"):format(checks, n))
