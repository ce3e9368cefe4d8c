-- Helpers for sweep scripts, part of the tplan module (compiled into the
-- binary): script arguments as key=value, aligned tables, human numbers.
-- Plain Lua over the C API; no modelling here.
local tplan = ...

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return table.concat(ks, ", ")
end

local function convert(key, text, like)
  local kind = type(like)
  if kind == "number" then
    local n = tonumber(text)
    if not n then error(("argument %s must be a number (%s=%s)"):format(key, key, text), 0) end
    return n
  elseif kind == "boolean" then
    if text == "true" or text == "1" or text == "yes" then return true end
    if text == "false" or text == "0" or text == "no" then return false end
    error(("argument %s must be true or false (%s=%s)"):format(key, key, text), 0)
  elseif kind == "table" then
    local list = {}
    for item in text:gmatch("[^,]+") do
      list[#list + 1] = type(like[1]) == "number" and convert(key, item, 0) or item
    end
    if #list == 0 then error(("argument %s needs a list a,b,c (%s=%s)"):format(key, key, text), 0) end
    return list
  end
  return text
end

-- tplan.args(arg, defaults): the script's arguments "key=value" over the
-- defaults; each value takes its default's type (a table default takes a
-- comma-separated list). An unknown key or a bad value raises naming it.
function tplan.args(argv, defaults)
  if type(defaults) ~= "table" then
    error(("tplan.args: defaults must be a table {key = default, ...}, got %s"):format(type(defaults)), 2)
  end
  if argv ~= nil and type(argv) ~= "table" then
    error(("tplan.args: the arguments must be a list such as arg, got %s"):format(type(argv)), 2)
  end
  local out = {}
  for k, v in pairs(defaults) do out[k] = v end
  for i = 1, #(argv or {}) do
    local a = tostring(argv[i])
    if a == "help" or a == "--help" then
      print("arguments (key=value), with their defaults:")
      local ks = {}
      for k in pairs(defaults) do ks[#ks + 1] = k end
      table.sort(ks)
      for _, k in ipairs(ks) do
        local d = defaults[k]
        print(("  %-16s %s"):format(k, type(d) == "table" and table.concat(d, ",") or tostring(d)))
      end
      os.exit(0)
    end
    local k, v = a:match("^([%w_]+)=(.*)$")
    if not k then
      error(("argument %d must be key=value (got '%s')"):format(i, a), 2)
    end
    if defaults[k] == nil then
      error(("unknown argument '%s'; known: %s"):format(k, sorted_keys(defaults)), 2)
    end
    local ok, val = pcall(convert, k, v, defaults[k])
    if not ok then error(val, 2) end
    out[k] = val
  end
  return out
end

-- tplan.human(x): 1234567 -> "1.23M", 999999 -> "1M", -5.5 -> "-5.5";
-- integers below 1000 as they are; nil -> "-".
function tplan.human(x)
  if x == nil then return "-" end
  if type(x) ~= "number" then
    error(("tplan.human: a number expected, got %s"):format(type(x)), 2)
  end
  if x ~= x then return "nan" end
  local sign = x < 0 and "-" or ""
  local v = math.abs(x)
  if v == math.huge then return sign .. "inf" end
  if v < 1000 and math.type(x) == "integer" then return tostring(x) end
  local units = {"", "k", "M", "G", "T", "P", "E"}
  local u = 1
  while v >= 1000 and u < #units do v = v / 1000; u = u + 1 end
  local s = ("%.3g"):format(v)
  -- 999.9 rounds to "1e+03": carry it to the next unit
  if tonumber(s) >= 1000 and u < #units then
    u = u + 1
    s = ("%.3g"):format(v / 1000)
  end
  return sign .. s .. units[u]
end

-- tplan.gib(bytes): bytes as GiB with two decimals; nil -> "-".
function tplan.gib(b)
  if b == nil then return "-" end
  if type(b) ~= "number" then
    error(("tplan.gib: a number of bytes expected, got %s"):format(type(b)), 2)
  end
  return ("%.2f"):format(b / 2 ^ 30)
end

-- tplan.print_table(rows, columns): rows (plans, or any list of tables) as
-- an aligned table on stdout, a title line first. Each column is a field
-- name ("gpus": titled and read by that name) or {title, key or
-- function(row), [format]}; a format (string.format's) applies to each
-- value, and text it cannot print ("-" in a "%.1f" column) prints as it
-- is; nil prints as "-". Columns holding a number are right-aligned, the
-- others left-aligned.
-- Plans from a sweep's result (res:top, res:pareto) name the axes the
-- sweep varied (rows.axes): each one no column reads is shown first, so
-- two rows never look alike for want of the axis that tells them apart,
-- and the columns may be left out (the axes, then memory, step time, run
-- time and cost). A list with plans that do not fit gains a "fits"
-- column; one where none fits says so above the table.
local default_columns = {
  {"GiB", function(p) return p.total_bytes and p.total_bytes / 2 ^ 30 end, "%.1f"},
  {"step s", "step_time_s", "%.3g"},
  {"days", function(p) return p.time_h and p.time_h / 24 end, "%.1f"},
  {"cost $", "cost_usd", "%.0f"},
}

-- The columns to put first: the axes no column reads, and "fits" where
-- a row does not fit; and whether none fits.
local function leading(rows, columns)
  local read, out, unfit, fit = {}, {}, false, false
  for _, col in ipairs(columns) do
    local key = type(col) == "table" and (col[2] == nil and col[1] or col[2]) or col
    if type(key) == "string" then read[key] = true end
    -- a column titled by the field's name shows it, whatever computes it
    if type(col) == "table" and type(col[1]) == "string" then read[col[1]] = true end
  end
  for _, a in ipairs(type(rows.axes) == "table" and rows.axes or {}) do
    if not read[a] then out[#out + 1] = a; read[a] = true end
  end
  for _, row in ipairs(rows) do
    if type(row) == "table" and row.fits == false then unfit = true end
    if type(row) == "table" and row.fits == true then fit = true end
  end
  if unfit and not read.fits then out[#out + 1] = "fits" end
  return out, unfit and not fit
end

function tplan.print_table(rows, columns)
  local P = "tplan.print_table: "
  if type(rows) ~= "table" then
    error(P .. ("rows must be a list of tables (res:top(n), res:pareto(), ...), got %s")
          :format(type(rows)), 2)
  end
  if columns == nil and type(rows.axes) == "table" then columns = default_columns end
  if type(columns) ~= "table" then
    error(P .. ("columns must be a list of field names or {title, key or function(row), [format]}, got %s")
          :format(type(columns)), 2)
  end
  local specs = {}
  for c, col in ipairs(columns) do
    if type(col) == "string" then
      specs[c] = {title = col, key = col}
    elseif type(col) == "table" then
      local title, key, fmt = col[1], col[2], col[3]
      if key == nil and type(title) == "string" then key = title end
      if type(title) ~= "string" and type(title) ~= "number" then
        error(P .. ("column %d: the title (its first entry) must be text, got %s")
              :format(c, type(title)), 2)
      end
      local kt = type(key)
      if kt ~= "string" and kt ~= "number" and kt ~= "function" then
        error(P .. ("column %d ('%s'): the key (its second entry) must be a field name or a function(row), got %s")
              :format(c, title, kt), 2)
      end
      if fmt ~= nil and type(fmt) ~= "string" then
        error(P .. ("column %d ('%s'): the format (its third entry) must be text such as \"%%.2f\", got %s")
              :format(c, title, type(fmt)), 2)
      end
      specs[c] = {title = tostring(title), key = key, fmt = fmt}
    else
      error(P .. ("column %d must be a field name or {title, key or function(row), [format]}, got %s")
            :format(c, type(col)), 2)
    end
  end
  if #specs == 0 then error(P .. "no columns given", 2) end
  local first, none_fits = leading(rows, columns)
  for i, name in ipairs(first) do table.insert(specs, i, {title = name, key = name}) end

  -- display width: characters of UTF-8 text (model names), else bytes
  local function len(s) return utf8.len(s) or #s end
  local cells, width, right = {}, {}, {}
  for c, spec in ipairs(specs) do width[c] = len(spec.title) end
  for r, row in ipairs(rows) do
    local rt = type(row)
    if rt ~= "table" and rt ~= "userdata" then
      error(P .. ("row %d must be a table, got %s"):format(r, rt), 2)
    end
    cells[r] = {}
    for c, spec in ipairs(specs) do
      local v
      if type(spec.key) == "function" then v = spec.key(row) else v = row[spec.key] end
      if type(v) == "number" then right[c] = true end
      local s
      if v == nil then
        s = "-"
      elseif spec.fmt then
        local ok, out = pcall(string.format, spec.fmt, v)
        if ok then
          s = out
        elseif type(v) == "number" then
          error(P .. ("column '%s', row %d: format \"%s\" cannot print %s")
                :format(spec.title, r, spec.fmt, tostring(v)), 2)
        else
          s = tostring(v) -- "-" or other text in a numeric column
        end
      elseif math.type(v) == "float" then
        s = ("%.4g"):format(v)
      else
        s = tostring(v)
      end
      cells[r][c] = s
      if len(s) > width[c] then width[c] = len(s) end
    end
  end
  -- padded by hand: string.format takes widths below 100 only
  local function line(vals)
    local parts = {}
    for c = 1, #specs do
      local pad = (" "):rep(width[c] - len(vals[c]))
      parts[c] = right[c] and pad .. vals[c] or vals[c] .. pad
    end
    print((table.concat(parts, "  "):gsub("%s+$", "")))
  end
  local titles = {}
  for c, spec in ipairs(specs) do titles[c] = spec.title end
  if none_fits and #rows > 0 then print("no plan fits; the closest first:") end
  line(titles)
  for _, r in ipairs(cells) do line(r) end
end
