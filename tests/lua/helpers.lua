-- The Lua helpers of lua/helpers.lua (tplan.print_table, tplan.args,
-- tplan.human, tplan.gib) and the small C ones beside them (tplan.version,
-- tplan.lr_at's argument checks live in errors.lua), run through the real
-- binary by tests/test_lua.sh. print_table's output is captured and
-- compared line for line; each bad call must raise one message at the
-- caller's line. docs/lua-api.md documents what is checked here.
local n = 0
local function check(cond, what)
  n = n + 1
  if not cond then error("check failed: " .. what, 2) end
end

-- print_table prints through the global print: capture it
local function captured(f, ...)
  local lines, real = {}, print
  print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(parts, "\t")
  end
  local ok, err = pcall(f, ...)
  print = real
  if not ok then error(err, 0) end
  return table.concat(lines, "\n")
end

local function same(got, want, what)
  n = n + 1
  if got ~= want then
    error(("check failed: %s\n--- got\n%s\n--- want\n%s"):format(what, got, want), 2)
  end
end

-- expect(f, "message"): f() raises exactly message, after the position
local function expect(f, want, what)
  n = n + 1
  local ok, err = pcall(f)
  if ok then error("check failed: no error: " .. what, 2) end
  local msg = tostring(err):gsub("^[^:]+:%d+: ", "")
  if msg ~= want then
    error(("check failed: %s\n  got:  %s\n  want: %s"):format(what, msg, want), 2)
  end
end

-- print_table: the spec form {title, key or function, [format]} ---------
local rows = {
  {gpus = 8, cost = 1234.5, name = "a", fits = true},
  {gpus = 16, cost = nil, name = "bbbb", fits = false},
}
same(captured(tplan.print_table, rows, {
       {"gpus", "gpus"}, {"cost $", "cost", "%.1f"}, {"model", "name"},
       {"fits", "fits"}, {"double", function(r) return r.gpus * 2 end}}),
     "gpus  cost $  model  fits   double\n" ..
     "   8  1234.5  a      true       16\n" ..
     "  16       -  bbbb   false      32",
     "spec columns: numbers right, text left, nil as -, functions, formats")

-- field names as columns (the call that crashed at helpers.lua:88 before)
same(captured(tplan.print_table, rows, {"gpus", "cost", "name"}),
     "fits   gpus  cost  name\n" ..
     "true      8  1234  a\n" ..
     "false    16     -  bbbb",
     "field names as columns; floats in %.4g; a plan that does not fit shows why")
same(captured(tplan.print_table, rows, {"gpus", {"title only: name"}, {"name"}}),
     "fits   gpus  title only: name  name\n" ..
     "true      8  -                 a\n" ..
     "false    16  -                 bbbb",
     "a one-entry column reads the field its title names")

-- plans straight from a sweep, mixing both forms
local res = tplan.sweep{model = "gpt2", gpu = "a100-80g", axes = {gpus = {1, 2, 4}},
                        rank = {"gpus"}, keep = 3, threads = 1}
same(captured(tplan.print_table, res:top(3), {"gpus", "zero", {"fits", "fits"},
                                              {"GiB", function(p) return tplan.gib(p.total_bytes) end, "%.1f"}}),
     captured(tplan.print_table, res:top(3), {{"gpus", "gpus"}, {"zero", "zero"}, {"fits", "fits"},
                                              {"GiB", function(p) return tplan.gib(p.total_bytes) end, "%.1f"}}),
     "plans: field names and {title, key} print the same")
local top = res:top(3)
check(captured(tplan.print_table, top, {"gpus"}) == "gpus\n   1\n   2\n   4", "plans' gpus column")

-- a column titled "fits" shows it, whatever computes it: none is added
same(captured(tplan.print_table, rows, {"gpus", {"fits", function(r) return r.fits and "yes" or "no" end}}),
     "gpus  fits\n" ..
     "   8  yes\n" ..
     "  16  no",
     "a computed fits column")

-- a sweep's plans name its axes: each one no column reads leads (two
-- rows never look alike for want of it), and columns may be left out
local ax = tplan.sweep{model = "gpt2", gpu = "a100-80g", gpus = 8,
                       axes = {tp = {1, 2}, zero = {1, 3}}, rank = {"step_time_s"},
                       keep = 4, threads = 1}
local axtop = ax:top(4)
check(axtop.axes[1] == "tp" and axtop.axes[2] == "zero" and #axtop.axes == 2,
      "res:top names the swept axes")
local shown = captured(tplan.print_table, axtop, {"gpus", "tp"})
check(shown:match("^zero  gpus  tp\n"), "an axis no column reads leads: " .. shown)
check(captured(tplan.print_table, axtop):match("^tp  zero   GiB  step s"),
      "the default columns: the axes, then the figures")
check(ax:pareto{"step_time_s", "total_bytes"}.axes[1] == "tp", "res:pareto names them too")

-- no rows: the title line alone
same(captured(tplan.print_table, {}, {"gpus", "mfu"}), "gpus  mfu", "no rows: titles only")

-- a format that text cannot take prints the text ("-" in a %.1f column)
same(captured(tplan.print_table, {{v = 2.25}, {v = "-"}, {v = "3.5"}}, {{"v", "v", "%.1f"}}),
     "  v\n2.2\n  -\n3.5", "text in a formatted column")

-- cells wider than 99 characters (string.format's limit) and UTF-8 names
local long = ("x"):rep(120)
same(captured(tplan.print_table, {{w = long, n = 1}, {w = "y", n = 22}}, {"w", "n"}),
     "w" .. (" "):rep(119) .. "   n\n" .. long .. "   1\n" .. "y" .. (" "):rep(119) .. "  22",
     "a 120-character cell")
same(captured(tplan.print_table, {{m = "modèle", g = 8}, {m = "ab", g = 16}}, {"m", "g"}),
     "m        g\nmodèle   8\nab      16", "UTF-8 text is padded by characters")

-- print_table's errors name the call, the column and the row
local P = "tplan.print_table: "
expect(function() tplan.print_table(nil, {"gpus"}) end,
       P .. "rows must be a list of tables (res:top(n), res:pareto(), ...), got nil", "rows nil")
expect(function() tplan.print_table(rows) end,
       P .. "columns must be a list of field names or {title, key or function(row), [format]}, got nil",
       "columns missing")
expect(function() tplan.print_table(rows, {}) end, P .. "no columns given", "no columns")
expect(function() tplan.print_table(rows, {"gpus", 42}) end,
       P .. "column 2 must be a field name or {title, key or function(row), [format]}, got number",
       "a number as a column")
expect(function() tplan.print_table(rows, {{"x", true}}) end,
       P .. "column 1 ('x'): the key (its second entry) must be a field name or a function(row), got boolean",
       "a bad key")
expect(function() tplan.print_table(rows, {{"x", "gpus", 3}}) end,
       P .. "column 1 ('x'): the format (its third entry) must be text such as \"%.2f\", got number",
       "a bad format")
expect(function() tplan.print_table(rows, {{{}, "gpus"}}) end,
       P .. "column 1: the title (its first entry) must be text, got table", "a bad title")
expect(function() tplan.print_table({rows[1], 5}, {"gpus"}) end,
       P .. "row 2 must be a table, got number", "a bad row")
expect(function() tplan.print_table(rows, {{"cost", "cost", "%d"}}) end,
       P .. "column 'cost', row 1: format \"%d\" cannot print 1234.5",
       "a format a number cannot take")
-- the error is raised at the caller's line
local ok, err = pcall(function() tplan.print_table(rows, {}) end)
check(not ok and tostring(err):match("helpers%.lua:%d+: tplan%.print_table: no columns given$")
      and not tostring(err):match("^tplan/"), "print_table's error points at the script: " .. tostring(err))

-- human and gib ----------------------------------------------------------
local human = {
  {nil, "-"}, {0, "0"}, {7, "7"}, {999, "999"}, {-12, "-12"}, {5.5, "5.5"},
  {-5.5, "-5.5"}, {0.000123, "0.000123"}, {1000, "1k"}, {1234567, "1.23M"},
  {-1500, "-1.5k"}, {999.9, "1k"}, {999999, "1M"}, {15e12, "15T"},
  {8030261248, "8.03G"}, {1 / 0, "inf"}, {-1 / 0, "-inf"}, {0 / 0, "nan"},
}
for _, c in ipairs(human) do
  same(tplan.human(c[1]), c[2], ("tplan.human(%s)"):format(tostring(c[1])))
end
expect(function() tplan.human("12") end, "tplan.human: a number expected, got string", "human of text")
same(tplan.gib(nil), "-", "gib(nil)")
same(tplan.gib(2 ^ 30), "1.00", "gib of 1 GiB")
same(tplan.gib(80 * 10 ^ 9), "74.51", "gib of 80 GB")
expect(function() tplan.gib("1") end, "tplan.gib: a number of bytes expected, got string", "gib of text")

-- args -------------------------------------------------------------------
local d = {model = "gpt2", gpus = 8, seqs = {1024, 2048}, names = {"a"}, fast = false}
local a = tplan.args({"gpus=16", "seqs=512,4096", "fast=yes", "names=x,y", "model=llama3-8b"}, d)
check(a.gpus == 16 and math.type(a.gpus) == "integer", "a number argument")
check(#a.seqs == 2 and a.seqs[1] == 512 and a.seqs[2] == 4096, "a list of numbers")
check(a.names[1] == "x" and a.names[2] == "y", "a list of names")
check(a.fast == true and a.model == "llama3-8b", "a boolean and a name")
check(d.gpus == 8, "the defaults table is not changed")
local b = tplan.args(nil, d)
check(b.gpus == 8 and b.model == "gpt2", "no arguments: the defaults")
expect(function() tplan.args({"gpus=many"}, d) end, "argument gpus must be a number (gpus=many)", "a bad number")
expect(function() tplan.args({"fast=maybe"}, d) end, "argument fast must be true or false (fast=maybe)", "a bad boolean")
expect(function() tplan.args({"seqs=,"}, d) end, "argument seqs needs a list a,b,c (seqs=,)", "an empty list")
expect(function() tplan.args({"gpu=8"}, d) end, "unknown argument 'gpu'; known: fast, gpus, model, names, seqs",
       "an unknown key")
expect(function() tplan.args({"gpus"}, d) end, "argument 1 must be key=value (got 'gpus')", "not key=value")
expect(function() tplan.args(arg) end, "tplan.args: defaults must be a table {key = default, ...}, got nil",
       "no defaults")
expect(function() tplan.args("gpus=8", d) end,
       "tplan.args: the arguments must be a list such as arg, got string", "arguments as text")

-- version and lr_at --------------------------------------------------------
check(type(tplan.version) == "string" and tplan.version:match("^%d+%.%d+%.%d+"), "tplan.version")
local s = {kind = "cosine", peak = 1e-3, floor = 1e-4, warmup_steps = 10, total_steps = 110}
check(tplan.lr_at(s, 0) == 0 and math.abs(tplan.lr_at(s, 10) - 1e-3) < 1e-15 and
      math.abs(tplan.lr_at(s, 110) - 1e-4) < 1e-15, "lr_at: warmup from 0, peak, floor (an LR, not a fraction)")
local p = tplan.plan{model = "gpt2", gpu = "a100-80g", lr = 3e-4, tokens = 1e9}
check(p.lr and math.abs(tplan.lr_at(p.lr, p.lr.warmup_steps) - p.lr_peak) < 1e-12,
      "lr_at of a plan's schedule reaches its peak after warmup")

print(("ok %d checks"):format(n))
