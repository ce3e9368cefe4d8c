#!/usr/bin/env bash
# The Lua API and `tplan run` through the real binary: API happy paths and
# error messages (tests/lua/*.lua check themselves), script errors and
# usage errors as the user sees them, identical results for any thread
# count, exact shards, --csv, and Ctrl-C.
# Usage: test_lua.sh TPLAN_BINARY TESTS_DIR
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"

# expect_run STATUS "STDERR (exactly one line)" ARGS...
expect_run() {
    local want_rc=$1 want_err=$2
    shift 2
    "$tplan" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != "$want_rc" ]; then
        bad "tplan $* -> exit $rc, want $want_rc ($(head -n1 "$tmp/err"))"
    elif [ "$(cat "$tmp/err")" != "$want_err" ]; then
        bad "tplan $* -> stderr '$(cat "$tmp/err")', want '$want_err'"
    else
        ok
    fi
}

# self-checking scripts print "ok ..." as their last line (helpers.lua:
# tplan.print_table, tplan.args, tplan.human, tplan.gib, as docs/lua-api.md
# documents them)
for s in api errors helpers robust moe_lora layout offload_hsdp; do
    if "$tplan" run "$dir/lua/$s.lua" >"$tmp/out" 2>"$tmp/err" &&
        tail -n1 "$tmp/out" | grep -q '^ok '; then
        ok
    else
        bad "lua/$s.lua: $(cat "$tmp/err")"
    fi
done

# every input field: one bad value, one message from calc, tplan.plan and
# a sweep axis; one good value round-trips through JSON, Lua, CSV and a
# database (tests/lua/fields.lua)
mkdir -p "$tmp/fields"
if "$tplan" run "$dir/lua/fields.lua" -- "$tplan" "$tmp/fields" >"$tmp/out" 2>"$tmp/err" &&
    tail -n1 "$tmp/out" | grep -q '^ok '; then
    ok
else
    bad "lua/fields.lua: $(cat "$tmp/err")"
fi

# --- script errors: "tplan: file:line: message" once, exit 1 -------------
cd "$tmp"
printf 'local x = = 1\n' >syntax.lua
expect_run 1 "tplan: syntax.lua:1: unexpected symbol near '='" run syntax.lua
printf 'print("a")\nerror("bad thing")\n' >runtime.lua
expect_run 1 "tplan: runtime.lua:2: bad thing" run runtime.lua
printf '\n\nlocal p = tplan.plan{model = "gpt2", seqq = 1}\n' >api_err.lua
expect_run 1 "tplan: api_err.lua:3: tplan.plan: unknown field 'seqq': did you mean seq? (tplan fields lists them)" run api_err.lua
printf 'error({})\n' >object.lua
expect_run 1 "tplan: (error object is a table value)" run object.lua
printf 'local t = nil\nprint(t.x)\n' >nil_index.lua
expect_run 1 "tplan: nil_index.lua:2: attempt to index a nil value (local 't')" run nil_index.lua
printf 'tplan.sweep{model = "gpt2", axes = {tp = {1, 2}},\n  where = function(p) return p.fitz end}\n' >hook_err.lua
expect_run 1 "tplan: hook_err.lua:2: a plan has no field 'fitz'" run hook_err.lua
# a name that is no file here is looked for among the ready scripts too
# (the build tree links share/tplan/scripts beside cli/ to scripts/)
ready=$(realpath "$(dirname "$tplan")/../share/tplan/scripts")
expect_run 1 "tplan: cannot open nosuch.lua: No such file or directory, nor is it a ready script ($ready/nosuch.lua)" run nosuch.lua
expect_run 1 "tplan: cannot open ./nosuch.lua: No such file or directory" run ./nosuch.lua
# --traceback adds the stack after the same first line
"$tplan" run runtime.lua --traceback >/dev/null 2>"$tmp/err"
if [ "$(head -n1 "$tmp/err")" = "tplan: runtime.lua:2: bad thing" ] &&
    grep -q 'stack traceback' "$tmp/err"; then ok; else bad "--traceback"; fi

# a Hugging Face config.json through tplan.model{config = ...}; fields given
# beside it override it; config with a preset is refused
cat >hf.lua <<LUA
local q = tplan.model{config = "$dir/data/hf/qwen3-8b.json"}
assert(q.name == "qwen3-8b" and q.params == 8190735360 and q.qk_norm and q.head_dim == 128, q.params)
local h = tplan.model{config = "$dir/data/hf/qwen3-8b.json", layers = 18, name = "half"}
assert(h.name == "half" and h.layers == 18 and h.params < q.params)
local p = tplan.plan{model = q, gpu = "H100", seq = 4096}
assert(p.params == 8190735360 and p.gpu == "h100-sxm", p.gpu)
print("ok")
LUA
if "$tplan" run hf.lua >"$tmp/out" 2>"$tmp/err" && [ "$(cat "$tmp/out")" = ok ]; then ok; else bad "tplan.model{config}: $(cat "$tmp/err")"; fi
# mixtures of experts through Lua: the model's fields read back, active
# parameters, a custom MoE (Mixtral's shape typed out), EP and CP as plan
# fields and sweep axes; a model CSV with MoE columns
cat >moe.lua <<LUA
local d = tplan.model{config = "$dir/data/hf/deepseek-v3.json"}
assert(d.params == 671026404352 and d.experts == 256 and d.top_k == 8 and d.kv_lora_rank == 512 and d.moe_first_dense == 3, d.params)
assert(d.active_params == tplan.model("deepseek-v3").active_params)
local x = tplan.model{layers = 32, hidden = 4096, heads = 32, kv_heads = 8, ffn = 14336, vocab = 32000,
  mlp = "swiglu", norm = "rmsnorm", pos = "rotary", tied = false, bias = false, experts = 8, top_k = 2}
assert(x.params == 46702792704 and x.active_params == 12879925248, x.params)
local p1 = tplan.plan{model = x, gpus = 8, seq = 4096, micro_batch = 1}
local p8 = tplan.plan{model = x, gpus = 8, seq = 4096, micro_batch = 1, ep = 8}
assert(p8.ep == 8 and p8.weights_bytes < p1.weights_bytes and p8.active_params == 12879925248)
local r = tplan.sweep{name = "epcp", model = "mixtral-8x7b", seq = 8192, micro_batch = 1,
  axes = {gpus = {16}, ep = {1, 2, 4, 8}, cp = {1, 2}}, rank = {"total_bytes"}, keep = 8}
assert(r:stats().evaluated == 8)
local best = r:top(1)[1]
assert(best.ep == 8 and best.cp == 2, best.ep .. " " .. best.cp)
print("ok")
LUA
if "$tplan" run moe.lua >"$tmp/out" 2>"$tmp/err" && [ "$(cat "$tmp/out")" = ok ]; then ok; else bad "MoE through Lua: $(cat "$tmp/err")"; fi
# a model axis: MoE shapes (and any model) swept as model variants; each
# model at its own default sequence unless one is given; every plan equal
# to the one tplan.plan makes of its configuration
cat >model_axis.lua <<'LUA'
local m16 = tplan.model{preset = "mixtral-8x7b", name = "mixtral-16x7b", experts = 16}
local function sweep(extra)
  local spec = {name = "models", gpu = "h100-sxm", gpus = 64, micro_batch = 1, tokens = 1e12, keep = "all",
    axes = {model = {"mixtral-8x7b", m16, "llama3-8b"}, ep = {1, 8}, tp = {1, 2}}}
  for k, v in pairs(extra or {}) do spec[k] = v end
  return tplan.sweep(spec)
end
local r = sweep()
-- llama3-8b has no experts: its ep = 8 plans are invalid
assert(r:stats().space == 12 and r:stats().evaluated == 10, r:stats().evaluated)
local seen = {}
for _, p in ipairs(r:top(10)) do
  seen[p.model] = (seen[p.model] or 0) + 1
  assert(p.seq == (p.model == "llama3-8b" and 8192 or 32768), p.model .. " " .. p.seq)
  local q = tplan.plan{model = p.model == "mixtral-16x7b" and m16 or p.model, gpu = "h100-sxm", gpus = 64,
    micro_batch = 1, tokens = 1e12, ep = p.ep, tp = p.tp}
  for _, f in ipairs{"params", "active_params", "total_bytes", "step_time_s", "cost_usd"} do
    assert(p[f] == q[f], p.model .. " " .. f)
  end
end
assert(seen["mixtral-8x7b"] == 4 and seen["mixtral-16x7b"] == 4 and seen["llama3-8b"] == 2)
assert(m16.params > tplan.model("mixtral-8x7b").params and m16.active_params > tplan.model("mixtral-8x7b").active_params)
for _, p in ipairs(sweep{seq = 4096}:top(10)) do assert(p.seq == 4096) end
-- inputs that live in the model or GPU (dropout, eff_*) survive the model
-- and gpu axes, given at the top, by a framework file or as an axis
local k = tplan.sweep{axes = {model = {"gpt2", "llama3-8b"}, gpus = {8}}, dropout = 0.3, keep = "all"}
assert(k:count() == 2)
for _, p in ipairs(k:top(2)) do assert(p.dropout == 0.3, p.model) end
local g = tplan.sweep{model = "gpt2", eff_h0 = 123, axes = {gpu = {"a100-80g", "h100-sxm"}, eff_max = {0.2, 0.4}}, keep = "all"}
assert(g:count() == 4)
for _, p in ipairs(g:top(4)) do
  assert(p.eff_h0 == 123, p.gpu)
  local q = tplan.plan{model = "gpt2", gpu = p.gpu, eff_h0 = 123, eff_max = p.eff_max}
  assert(q.step_time_s == p.step_time_s and q.eff_max == p.eff_max, p.gpu .. " " .. p.eff_max)
end
print("ok")
LUA
if "$tplan" run model_axis.lua >"$tmp/out" 2>"$tmp/err" && [ "$(cat "$tmp/out")" = ok ]; then ok; else bad "model axis: $(cat "$tmp/err") $(cat "$tmp/out")"; fi
# frameworks through Lua: a built-in, a field overriding it, a CSV of
# one's own (any case), a sweep's base; a bad file registers nothing
printf 'name,source,eff_scale,profile\nOurs,our cluster,0.9,megatron\n' >fw.csv
printf 'name,eff_scale\ngood,1\nbad,-1\n' >fwbad.csv
cat >fw.lua <<'LUA'
local base = {model = "gpt2", gpus = 64, zero = 3, micro_batch = 1}
local function with(t) local c = {} for k, v in pairs(base) do c[k] = v end for k, v in pairs(t) do c[k] = v end return c end
local a, d = tplan.plan(base), tplan.plan(with{framework = "deepspeed"})
assert(a.framework == nil and d.framework == "deepspeed" and d.eff_scale == 0.75 and d.zero3_bw_eff == 0.086)
assert(d.step_time_s > a.step_time_s)
-- deepspeed's terms overridden, its fitted kernel (eager) too
local o = tplan.plan(with{framework = "deepspeed", eff_scale = 1, zero3_bw_eff = 1, attention = "flash"})
assert(o.framework == "deepspeed" and o.step_time_s == a.step_time_s, o.step_time_s)
-- its fitted kernel is the default: eager, no warning; flash is warned about
assert(d.attention == "eager" and d.fit_attention == "eager" and not table.concat(d.warnings, " | "):find("fitted under"), table.concat(d.warnings, " | "))
assert(o.attention == "flash" and table.concat(o.warnings, " | "):find("framework deepspeed was fitted under eager attention"), table.concat(o.warnings, " | "))
local names = tplan.frameworks.load("fw.csv")
assert(#names == 1 and names[1] == "Ours")
local m = tplan.plan(with{framework = "ours"})
assert(m.framework == "Ours" and m.eff_scale == 0.9 and m.profile == "megatron")
local ok, err = pcall(tplan.frameworks.load, "fwbad.csv")
assert(not ok and err:find("fwbad.csv:3: eff_scale: %-1: out of range"), err)
ok, err = pcall(tplan.plan, with{framework = "good"})
assert(not ok and err:find("unknown framework %(framework=good%)"), err)
ok, err = pcall(tplan.plan, with{framework = 3})
assert(not ok and err:find("field 'framework' must be a framework name %(got number%)"), err)
local r = tplan.sweep{model = "gpt2", framework = "megatron", axes = {gpus = {8, 16}}, keep = 2}
assert(#r:top(2) == 2)
for _, p in ipairs(r:top(2)) do assert(p.framework == "megatron" and p.eff_scale == 0.95 and p.eff_tok0 == 64) end
print("ok")
LUA
if "$tplan" run fw.lua >"$tmp/out" 2>"$tmp/err" && [ "$(cat "$tmp/out")" = ok ]; then ok; else bad "frameworks through Lua: $(cat "$tmp/err")"; fi
printf 'name,layers,hidden,heads,experts,top_k,softcap\ntiny-moe,2,64,4,4,2,true\n' >moe.csv
cat >moe_csv.lua <<'LUA'
tplan.models.load("moe.csv")
local m = tplan.model("tiny-moe")
assert(m.experts == 4 and m.top_k == 2 and m.softcap == true and m.active_params < m.params, tostring(m.experts))
print("ok")
LUA
if "$tplan" run moe_csv.lua >"$tmp/out" 2>"$tmp/err" && [ "$(cat "$tmp/out")" = ok ]; then ok; else bad "MoE model CSV: $(cat "$tmp/err")"; fi
printf 'tplan.model{config = "%s", preset = "gpt2"}\n' "$dir/data/hf/gpt2.json" >hf_both.lua
expect_run 1 "tplan: hf_both.lua:1: tplan.model: give one of config, preset and params (config=$dir/data/hf/gpt2.json)" run hf_both.lua
printf 'tplan.model{config = "nosuch.json"}\n' >hf_none.lua
expect_run 1 "tplan: hf_none.lua:1: tplan.model: model_config: nosuch.json: No such file or directory" run hf_none.lua

# --- usage errors: exit 2 ---------------------------------------------------
printf 'print(1)\n' >one.lua
expect_run 2 "tplan run: give a script; see tplan run --help" run
expect_run 2 "tplan: --threads must be an integer >= 1 (--threads=0)" run one.lua --threads 0
expect_run 2 "tplan: --threads takes 1 to 256 (--threads 999)" run one.lua --threads 999
expect_run 2 "tplan: --threads needs a value" run one.lua --threads
expect_run 2 "tplan: --shard takes K/N with 0 <= K < N <= 1000000 (--shard 3/3)" run one.lua --shard 3/3
expect_run 2 "tplan: --shard takes K/N, as 0/4 (--shard x)" run one.lua --shard x
expect_run 2 "tplan run: unknown option '--bogus'; see tplan run --help" run one.lua --bogus
expect_run 2 "tplan run: one script only ('two.lua' after 'one.lua'); script arguments go after --" run one.lua two.lua
expect_run 2 "tplan: --db needs a value" run one.lua --db
"$tplan" run --help >"$tmp/out" 2>&1 && grep -q '^usage: tplan run' "$tmp/out" && ok || bad "run --help"

# --- arguments: arg[0] is the script, the rest follow -- ------------------
printf 'print(arg[0], #arg, arg[1], arg[2], select("#", ...), ...)\n' >args.lua
out=$("$tplan" run args.lua --threads 2 -- alpha --beta 2>&1)
[ "$out" = "$(printf 'args.lua\t2\talpha\t--beta\t2\talpha\t--beta')" ] && ok || bad "arg table: $out"

# --- identical results for any thread count ------------------------------
for t in 1 2 3; do
        "$tplan" run "$dir/lua/determinism.lua" --threads $t --csv "t$t.csv" --db "t$t.db" >"t$t.out" 2>"t$t.err" ||
        bad "determinism --threads $t: $(cat "t$t.err")"
    # kept plans are evaluated again on the sweep's threads before they are written
    "$tplan" query "t$t.db" "SELECT * FROM plans ORDER BY sweep_id, rank, config_index" --csv >"t$t.dbcsv"
done
if cmp -s t1.csv t2.csv && cmp -s t1.csv t3.csv && cmp -s t1.out t2.out &&
    cmp -s t1.out t3.out && cmp -s t1.dbcsv t2.dbcsv && cmp -s t1.dbcsv t3.dbcsv &&
    [ "$(wc -l <t1.dbcsv)" -gt 100 ]; then
    ok
else
    bad "--threads 1/2/3 differ"
fi
rows=$(($(wc -l <t1.csv) - 1))
[ "$rows" -gt 100 ] && ok || bad "determinism wrote only $rows rows"
# the sweep's own threads field overrides --threads: same output again
grep -q '^front' t1.out && ok || bad "determinism: no Pareto front printed"

# --- the walk order (issue 38): by reach class or in the index's order, on
# 1 or 2 threads, or as two shards, a sweep finds the same plans, ranks
# and ties included, over 110,592 configurations, and the reach order
# stages more of them
for w in canonical reach; do
    for t in 1 2; do
        "$tplan" run "$dir/lua/walk_order.lua" --threads $t -- walk=$w >"wo-$w$t.out" 2>"wo-$w$t.err" ||
            bad "walk_order $w --threads $t: $(cat "wo-$w$t.err")"
    done
done
if [ "$(grep -c '^all ' wo-canonical1.out)" -gt 50000 ] && cmp -s wo-canonical1.out wo-reach1.out &&
    cmp -s wo-canonical1.out wo-reach2.out && cmp -s wo-canonical1.out wo-canonical2.out; then ok
else bad "walk orders or threads differ: $(cmp wo-canonical1.out wo-reach1.out; cmp wo-canonical1.out wo-reach2.out)"; fi
for k in 0 1; do
    "$tplan" run "$dir/lua/walk_order.lua" --shard $k/2 -- walk=reach >"wo-s$k.out" 2>/dev/null || bad "walk_order shard $k/2"
done
# the shards' plans together are the whole run's (ranks are per shard)
if [ "$(grep -v '^top\|^front' wo-s0.out wo-s1.out | cut -d: -f2 | sort)" = "$(grep -v '^top\|^front' wo-canonical1.out | sort)" ]; then ok
else bad "walk_order: shards 0/2 and 1/2 do not add up to the whole run"; fi
staged() { sed -n 's/.*evaluated \([0-9]*\) staged \([0-9]*\)/\2 \1/p' "$1"; }
read -r sc ec < <(staged wo-canonical1.err)
read -r sr er < <(staged wo-reach1.err)
[ "$ec" = "$er" ] && [ "$((sr * 1000 / er))" -ge 850 ] && [ "$sr" -gt "$sc" ] && ok ||
    bad "walk by reach: $sr of $er staged (index order: $sc of $ec); want >= 85%"

# --- shards: the union of 0/3, 1/3, 2/3 is the unsharded run ------------------
"$tplan" run "$dir/lua/shard.lua" --csv full.csv 2>/dev/null || bad "shard: full run"
for k in 0 1 2; do
    "$tplan" run "$dir/lua/shard.lua" --shard $k/3 --csv "s$k.csv" 2>/dev/null || bad "shard $k/3"
done
# drop the rank column (ranks are per file) and compare as sets
strip() { for f; do tail -n +2 "$f"; done | cut -d, -f1,3- | sort; }
if [ "$(strip full.csv)" = "$(strip s0.csv s1.csv s2.csv)" ] &&
    [ "$(tail -n +2 full.csv | wc -l)" -gt 50 ]; then
    ok
else
    bad "shards 0..2/3 do not add up to the unsharded run"
fi

# --- --csv keeps the sweeps that completed when the script fails later ------
printf 'tplan.sweep{name = "done", model = "gpt2", axes = {gpus = {1, 2}}, keep = "all"}\nerror("later")\n' >late.lua
"$tplan" run late.lua --csv late.csv >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l <late.csv)" = 3 ] && grep -q '^done,1,' late.csv; then
    ok
else
    bad "--csv after a script error: exit $rc, $(wc -l <late.csv 2>/dev/null) lines"
fi
# an unwritable --csv fails before the script runs
expect_run 1 "tplan: --csv: cannot create /nonexistent/x.csv: No such file or directory" \
    run one.lua --csv /nonexistent/x.csv
# no temporary file (NAME.tmp.XXXXXX beside the target) outlives a run:
# neither the one that failed after its sweep nor one that finished
"$tplan" run one.lua --csv done.csv >/dev/null 2>&1
if [ -s late.csv ] && [ -s done.csv ] && [ -z "$(ls -- *.tmp.* 2>/dev/null)" ]; then
    ok
else
    bad "temporary CSV files left behind: $(ls -- *.tmp.* 2>/dev/null)"
fi

# --- no command writes over its inputs or two outputs to one file ----------
# (device and inode, not names: ./x and links are caught too)
printf 'tplan.sweep{name = "s", model = "gpt2", axes = {gpus = {1, 2}}}\n' >s.lua
cp s.lua s.orig
ln -sf s.lua s-link.lua
expect_run 2 "tplan: --csv: s.lua is the script itself: refusing to write over it" run s.lua --csv s.lua
expect_run 2 "tplan: --db: ./s.lua is the script itself: refusing to write over it" run s.lua --db ./s.lua
expect_run 2 "tplan: --csv: s-link.lua is the script itself: refusing to write over it" run s.lua --csv s-link.lua
expect_run 2 "tplan: --db: --csv and --db name one file (./both.out): give each its own" run s.lua --csv both.out --db ./both.out
cmp -s s.lua s.orig && [ ! -e both.out ] && ok || bad "a refused run changed a file"
printf 'local r = tplan.sweep{model = "gpt2"}\nr:csv(arg[0])\n' >w.lua
cp w.lua w.orig
expect_run 1 "tplan: w.lua:2: tplan.result:csv: w.lua is the running script: refusing to write over it" run w.lua
cmp -s w.lua w.orig && ok || bad "res:csv wrote over the script"
# a catalog the script loads is an input too: not the run's --csv or --db,
# and res:csv/res:save refuse to write over it
printf 'name,base,price\nmy-gpu,a100-80g,1\n' >cat.csv
cp cat.csv cat.orig
printf 'tplan.gpus.load("cat.csv")\nlocal r = tplan.sweep{model = "gpt2", gpu = "my-gpu"}\nprint(r:count())\n' >catrun.lua
expect_run 1 "tplan: catrun.lua:1: tplan.gpus.load: cat.csv is this run's --csv output: a file the script reads must be a file of its own" run catrun.lua --csv ./cat.csv
"$tplan" run catrun.lua --db catdb.db >/dev/null 2>&1
cp catdb.db catdb.orig
printf 'tplan.gpus.load("catdb.db")\n' >catdb.lua
expect_run 1 "tplan: catdb.lua:1: tplan.gpus.load: catdb.db is this run's --db output: a file the script reads must be a file of its own" run catdb.lua --db catdb.db
cmp -s catdb.db catdb.orig && ok || bad "the database was changed"
printf 'tplan.gpus.load("cat.csv")\nlocal r = tplan.sweep{model = "gpt2", gpu = "my-gpu"}\nr:csv("./cat.csv")\n' >catover.lua
expect_run 1 "tplan: catover.lua:3: tplan.result:csv: ./cat.csv is a file this script read: refusing to write over it" run catover.lua
printf 'tplan.gpus.load("cat.csv")\nlocal r = tplan.sweep{model = "gpt2", gpu = "my-gpu"}\nr:save("cat.csv")\n' >catsave.lua
expect_run 1 "tplan: catsave.lua:3: tplan.result:save: cat.csv is a file this script read: refusing to write over it" run catsave.lua
cmp -s cat.csv cat.orig && ok || bad "a catalog was written over"
out=$("$tplan" run catrun.lua --csv catplans.csv 2>&1) && [ "$out" = 1 ] && [ -s catplans.csv ] && ok ||
    bad "a catalog beside a --csv of its own: $out"
# every other way a script reads a file is an input too (issue 36: each
# of these ran to exit 0 and replaced the file with the run's CSV): a
# module it requires, a file it runs with dofile or loadfile, reads with
# io.open or io.lines, a config.json it builds a model from
printf 'return {gpus = 8}\n' >mymod.lua
cp mymod.lua mymod.orig
printf 'local m = require("mymod")\nprint(tplan.sweep{model = "gpt2", gpus = m.gpus}:count())\n' >usem.lua
expect_run 1 "tplan: usem.lua:1: require: ./mymod.lua is this run's --csv output: a file the script reads must be a file of its own" run usem.lua --csv mymod.lua
cmp -s mymod.lua mymod.orig && ok || bad "--csv over a required module changed it"
printf 'local m = dofile("mymod.lua")\nprint(m.gpus)\n' >dof.lua
expect_run 1 "tplan: dof.lua:1: dofile: mymod.lua is this run's --csv output: a file the script reads must be a file of its own" run dof.lua --csv mymod.lua
# (--db over it is refused before the script runs: not a database)
"$tplan" run dof.lua --db mymod.lua >/dev/null 2>&1 && bad "--db over a module ran" || ok
printf 'local f = assert(loadfile("./mymod.lua"))\nprint(f().gpus)\n' >lf.lua
expect_run 1 "tplan: lf.lua:1: loadfile: ./mymod.lua is this run's --csv output: a file the script reads must be a file of its own" run lf.lua --csv mymod.lua
printf 'local f = assert(io.open("mymod.lua"))\nprint(f:read("a"))\n' >io1.lua
expect_run 1 "tplan: io1.lua:1: io.open: mymod.lua is this run's --csv output: a file the script reads must be a file of its own" run io1.lua --csv mymod.lua
printf 'for l in io.lines("mymod.lua") do print(l) end\n' >io2.lua
expect_run 1 "tplan: io2.lua:1: io.lines: mymod.lua is this run's --csv output: a file the script reads must be a file of its own" run io2.lua --csv ./mymod.lua
cmp -s mymod.lua mymod.orig && ok || bad "--csv/--db over a file the script read changed it"
cp "$dir/data/hf_configs/llama3-8b.json" cfg.json 2>/dev/null || printf '{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256}\n' >cfg.json
cp cfg.json cfg.orig
printf 'local m = tplan.model{config = "cfg.json"}\nprint(tplan.sweep{model = m}:count())\n' >cfg.lua
expect_run 1 "tplan: cfg.lua:1: tplan.model: cfg.json is this run's --csv output: a file the script reads must be a file of its own" run cfg.lua --csv cfg.json
cmp -s cfg.json cfg.orig && ok || bad "--csv over a config.json changed it"
# res:csv over a module the script read is refused as over a catalog
printf 'local m = require("mymod")\ntplan.sweep{model = "gpt2", gpus = m.gpus}:csv("mymod.lua")\n' >usem2.lua
expect_run 1 "tplan: usem2.lua:2: tplan.result:csv: mymod.lua is a file this script read: refusing to write over it" run usem2.lua
cmp -s mymod.lua mymod.orig && ok || bad "res:csv over a required module changed it"
# a config that is not JSON: the parse error names the place, never the
# file's own words
printf 'root:$6$secret:19000:0:99999:7:::\n' >notjson
printf 'tplan.model{config = "notjson"}\n' >nj.lua
"$tplan" run nj.lua >/dev/null 2>nj.err
! grep -q 'root\|secret' nj.err && grep -q 'notjson:1:[0-9]*: not valid JSON' nj.err && ok ||
    bad "a config that is not JSON echoed its content: $(cat nj.err)"
# the process's own streams as outputs are written through their
# descriptors, appending where the shell opened them so (issue 36: --csv
# /dev/stdout >> log replaced log.txt, its earlier lines and what the
# script printed lost)
printf 'print("printed by the script")\ntplan.sweep{name = "st", model = "gpt2", axes = {gpus = {1, 2}}}\n' >st.lua
echo "earlier line" >log.txt
"$tplan" run st.lua --csv /dev/stdout >>log.txt 2>/dev/null
[ "$(head -1 log.txt)" = "earlier line" ] && grep -qx "printed by the script" log.txt &&
    [ "$(grep -c '^st,' log.txt)" = 2 ] && grep -q '^sweep,rank,' log.txt && ok ||
    bad "--csv /dev/stdout >> log: $(head -c 300 log.txt)"
echo "earlier line" >log3.txt
"$tplan" run st.lua --csv /dev/fd/3 3>>log3.txt >/dev/null 2>&1
[ "$(head -1 log3.txt)" = "earlier line" ] && [ "$(grep -c '^st,' log3.txt)" = 2 ] && ok ||
    bad "--csv /dev/fd/3 3>> log: $(head -c 300 log3.txt)"
"$tplan" run st.lua --db st.db >/dev/null 2>&1
echo "earlier line" >log4.txt
"$tplan" export st.db --csv /dev/stdout >>log4.txt 2>/dev/null
[ "$(head -1 log4.txt)" = "earlier line" ] && [ "$(grep -c '^st,' log4.txt)" = 2 ] && ok ||
    bad "export --csv /dev/stdout >> log: $(head -c 300 log4.txt)"
echo "earlier line" >log5.txt
expect_run 1 "tplan: --db: /dev/stdout is one of this process's streams: a database must be a file (--csv writes to a stream)" run st.lua --db /dev/stdout
"$tplan" run st.lua --db /dev/stdout >>log5.txt 2>/dev/null
[ "$(cat log5.txt)" = "earlier line" ] && ok || bad "--db /dev/stdout >> log changed the log"
# under --safe config= is read as a catalog is: not /proc or /sys
printf 'tplan.model{config = "/sys/kernel/mm/transparent_hugepage/enabled"}\n' >sys.lua
expect_run 1 "tplan: sys.lua:1: tplan.model: --safe: a script may not read /sys/kernel/mm/transparent_hugepage/enabled (/proc and /sys hold other processes' secrets)" run --safe sys.lua
# a script that fails before any sweep leaves a good CSV as it was
"$tplan" run s.lua --csv good.csv >/dev/null 2>&1
cp good.csv good.orig
printf 'error("before any sweep")\n' >early.lua
expect_run 1 "tplan: early.lua:1: before any sweep" run early.lua --csv good.csv
cmp -s good.csv good.orig && [ -z "$(ls -- good.csv.tmp.* 2>/dev/null)" ] && ok ||
    bad "a failed run replaced the CSV or left a temporary file"

# a killed run's temporary file (its name carries the dead PID) is removed
# by the next run writing the same target; a live process's is left alone
sleep 0 &
dead=$!
wait "$dead"
touch "good.csv.tmp.$dead.AbCdEf" "good.csv.tmp.$$.live"
"$tplan" run s.lua --csv good.csv >/dev/null 2>&1
[ ! -e "good.csv.tmp.$dead.AbCdEf" ] && [ -e "good.csv.tmp.$$.live" ] && ok ||
    bad "stale temporary files: $(ls -- good.csv.tmp.* 2>/dev/null)"
rm -f "good.csv.tmp.$$.live"
# kill -9 in the middle of a large --csv write: the old file stays byte
# for byte; the run after it removes the leftover
# (221,184 rows: seconds of writing, so the kill lands inside it)
printf 'tplan.sweep{name = "big", model = "gpt2", axes = {gpus = {1, 2, 4, 8, 16, 32, 64, 128}, zero = {0, 1, 2, 3}, seq = {128, 256, 512, 1024}, micro_batch = {1, 2, 4, 8, 16, 32}, overlap = {0, 0.2, 0.4, 0.6, 0.8, 1}, price = {1, 2, 3, 4, 5, 6, 7, 8}, pue = {1.1, 1.3}, grid = {0.1, 0.4, 0.7}}, keep = "all"}\n' >bigcsv.lua
cp good.csv good.orig
"$tplan" run bigcsv.lua --csv good.csv --threads 2 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 2400); do # until the temporary file has grown past 1 MB
    [ "$(cat good.csv.tmp.$pid.* 2>/dev/null | wc -c)" -gt 1000000 ] && break
    sleep 0.05
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if cmp -s good.csv good.orig && [ -n "$(ls -- good.csv.tmp.$pid.* 2>/dev/null)" ]; then
    ok
else
    bad "kill -9 during a CSV write: file changed or no temporary to clean ($(ls -- good.csv*))"
fi
"$tplan" run s.lua --csv good.csv >/dev/null 2>&1
[ -z "$(ls -- good.csv.tmp.* 2>/dev/null)" ] && ok || bad "the leftover was not removed"
# SIGTERM or SIGINT while the rows are written (the sweep has ended):
# the write is undone, the old file stays byte for byte, no temporary file
# is left, stderr says so, exit 143 (130). The same for a script's own
# res:csv.
printf 'local r = tplan.sweep{name = "big", model = "gpt2", axes = {gpus = {1, 2, 4, 8, 16, 32, 64, 128}, zero = {0, 1, 2, 3}, seq = {128, 256, 512, 1024}, micro_batch = {1, 2, 4, 8, 16, 32}, overlap = {0, 0.2, 0.4, 0.6, 0.8, 1}, price = {1, 2, 3, 4, 5, 6, 7, 8}, pue = {1.1, 1.3}, grid = {0.1, 0.4, 0.7}}, keep = "all"}\nr:csv(arg[1])\n' >owncsv.lua
for how in TERM:--csv INT:--csv TERM:own; do
    sig=${how%%:*}
    rm -f good.csv.tmp.*
    if [ "${how#*:}" = own ]; then
        "$tplan" run owncsv.lua --threads 2 -- good.csv >/dev/null 2>sig.err &
    else
        "$tplan" run bigcsv.lua --csv good.csv --threads 2 >/dev/null 2>sig.err &
    fi
    pid=$!
    for _ in $(seq 2400); do
        [ "$(cat good.csv.tmp.$pid.* 2>/dev/null | wc -c)" -gt 1000000 ] && break
        sleep 0.05
    done
    kill -$sig "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    want=143; [ "$sig" = INT ] && want=130
    if [ "$rc" = $want ] && cmp -s good.csv good.orig && [ -z "$(ls -- good.csv.tmp.* 2>/dev/null)" ] &&
        grep -q "^tplan: interrupted while writing good.csv: undoing the write; the file stays as it was" sig.err; then
        ok
    else
        bad "SIG$sig during a CSV write ($how): exit $rc, $(cat sig.err), $(ls -- good.csv*)"
    fi
done

# Plans that fit rank first (issue 33): by throughput alone micro-batches
# 16, 8 and 4 lead, none of which fits; fits first keeps 2 and 1 (which
# fit) ahead of 4. Only fits_first = false mixes them, by name.
printf 'local r = tplan.sweep{name = "ff", model = "llama2-7b", gpu = "a100-80g", gpus = 8, zero = 3, seq = 4096, axes = {micro_batch = {1, 2, 4, 8, 16}}, rank = {"tokens_per_s"}, keep = 3, fits_first = (arg[1] ~= "mix")}\nfor _, p in ipairs(r:top()) do io.write(p.micro_batch, ":", tostring(p.fits), " ") end\nprint(r:stats().kept_unfit)\n' >ff.lua
expect_run 0 "" run ff.lua
[ "$(cat "$tmp/out")" = "2:true 1:true 4:false 1" ] && ok || bad "fits first: $(cat "$tmp/out")"
expect_run 0 "" run ff.lua -- mix
[ "$(cat "$tmp/out")" = "16:false 8:false 4:false 3" ] && ok || bad "fits_first = false: $(cat "$tmp/out")"
"$tplan" run ff.lua --db ff.db >/dev/null && "$tplan" run ff.lua --db ff.db -- mix >/dev/null &&
    [ "$(sqlite3 ff.db 'SELECT group_concat(fits_first) FROM sweeps')" = "1,0" ] &&
    [ "$(sqlite3 ff.db 'SELECT group_concat(micro_batch) FROM (SELECT micro_batch FROM plans WHERE sweep_id = 1 ORDER BY rank)')" = "2,1,4" ] &&
    [ "$(sqlite3 -csv ff.db 'SELECT axes FROM sweeps WHERE id = 1')" = "micro_batch" ] &&
    ok || bad "fits_first and axes stored: $(sqlite3 -csv ff.db 'SELECT id, axes, fits_first FROM sweeps')"
# where none fits, the run says so and names the closest (the least memory
# over the usable first, whatever the objectives say); a fits limit keeps none
printf 'local r = tplan.sweep{name = "none", model = "llama2-7b", gpu = "a100-80g", seq = 4096, axes = {micro_batch = {4, 1, 2}, zero = {0, 1}}, rank = {"tokens_per_s"}, keep = 2}\nfor _, p in ipairs(r:top()) do io.write(p.micro_batch, " ") end\ntplan.print_table(r:top())\n' >none.lua
expect_run 0 "tplan: warning: sweep 'none': no plan fits; the closest: zero 0, micro_batch 1 needs 126.5 GiB per GPU where 71.3 GiB is usable" run none.lua
[ "$(head -n2 "$tmp/out")" = "$(printf '1 2 no plan fits; the closest first:\nzero  micro_batch  fits     GiB  step s   days  cost $')" ] &&
    ok || bad "none fits, closest first: $(cat "$tmp/out")"

# --- audit reproducers (issue 14): each crashed, leaked or lost a file ----
# os.exit finishes the outputs first: the completed sweep is in the CSV,
# renamed into place, no temporary left; from a finaliser run at the state's
# close (after the outputs are finished) and from one run mid-script, with
# and without closing the state (the ASan run of this suite checks memory)
printf 'local r = tplan.sweep{name = "x", model = "gpt2", axes = {gpus = {1, 2}}}\nos.exit(4)\n' >exit.lua
expect_run 4 "" run exit.lua --csv exit.csv
[ "$(wc -l <exit.csv)" = 3 ] && [ -z "$(ls -- exit.csv.tmp.* 2>/dev/null)" ] && ok || bad "os.exit lost the CSV: $(ls exit.csv*)"
printf 'setmetatable({}, {__gc = function() os.exit(3, true) end})\nlocal r = tplan.sweep{name = "x", model = "gpt2", axes = {gpus = {1, 2}}}\nprint(r:count())\n' >gcexit.lua
expect_run 3 "" run gcexit.lua --csv gcexit.csv --db gcexit.db
[ "$(cat "$tmp/out")" = 2 ] && [ "$(wc -l <gcexit.csv)" = 3 ] && [ -z "$(ls -- gcexit.csv.tmp.* gcexit.db-journal 2>/dev/null)" ] &&
    [ "$("$tplan" query gcexit.db "SELECT count(*) FROM plans" --csv | tail -n 1 | tr -d '\r')" = 2 ] && ok ||
    bad "os.exit from a finaliser at close: $(ls gcexit*)"
printf 'local t = setmetatable({}, {__gc = function() os.exit(5) end})\nt = nil\ncollectgarbage()\nprint("after")\n' >gcmid.lua
cp good.orig gcmid.csv
expect_run 5 "" run gcmid.lua --csv gcmid.csv
# (a failing status before any sweep: the previous CSV stays)
[ ! -s "$tmp/out" ] && cmp -s gcmid.csv good.orig && [ -z "$(ls -- gcmid.csv.tmp.* 2>/dev/null)" ] && ok ||
    bad "os.exit from a finaliser mid-script: '$(cat "$tmp/out")'"
# a sweep's name collected while the sweep runs (its spec table's only
# reference dropped by a hook): the rows still carry it (was a use after free)
printf 'local spec = {name = ("n"):rep(40) .. "x", model = "gpt2", axes = {gpus = {1, 2, 4}}}\nspec.where = function(p) spec.name = nil; collectgarbage(); return true end\nlocal r = tplan.sweep(spec)\nspec = nil\ncollectgarbage()\nr:csv("named.csv")\n' >named.lua
expect_run 0 "" run named.lua
[ "$(cut -d, -f1 named.csv | sort -u | tr '\n' ' ')" = "$(printf 'n%.0s' $(seq 40))x sweep " ] && ok ||
    bad "a collected sweep name: $(cut -d, -f1 named.csv | sort -u | tr '\n' ' ')"
# 5,000 script arguments (45 crashed: the Lua stack was not grown)
printf 'print(#arg, arg[#arg])\n' >args.lua
out=$("$tplan" run args.lua -- $(seq 1 5000) 2>&1)
[ "$out" = "5000	5000" ] && ok || bad "5000 script arguments: $(echo "$out" | head -c 200)"

# --- scripts from pipes and process substitution are read once, run once --
out=$("$tplan" run <(printf 'n = (n or 0) + 1\nprint("ran", n)\n') 2>&1)
[ "$out" = "ran	1" ] && ok || bad "process substitution: '$out'"
out=$(printf 'print("stdin", ...)\n' | "$tplan" run - -- a b 2>&1)
[ "$out" = "stdin	a	b" ] && ok || bad "tplan run -: '$out'"
expect_run 1 "tplan: stdin:1: from a pipe" run - <<<'error("from a pipe")'
printf '#!/usr/bin/env tplan\nerror("line two")\n' >shebang.lua
expect_run 1 "tplan: shebang.lua:2: line two" run shebang.lua

# --- Ctrl-C: the sweep ends, the script goes on, exit 130 -----------------------
timeout --preserve-status -s INT 2 "$tplan" run "$dir/lua/interrupt.lua" \
    --csv int.csv >int.out 2>int.err
rc=$?
if [ "$rc" = 130 ] && grep -q '^interrupted true' int.out &&
    grep -q 'kept 10$' int.out && [ "$(wc -l <int.csv)" = 11 ] &&
    grep -q 'interrupted: the sweep stopped early' int.err; then
    ok
else
    bad "SIGINT: exit $rc, out '$(cat int.out)', err '$(cat int.err)'"
fi

# the progress bar: on a terminal (script(1) provides one), never in pipes
if command -v script >/dev/null; then
    timeout 20 script -qc "'$tplan' run '$dir/lua/interrupt.lua' --timeout 2" /dev/null >tty.out 2>&1
    tr '\r' '\n' <tty.out | grep -aq '%  .* configs/s  ETA ' && ok || bad "no progress bar on a terminal"
    # and a line while a large CSV is written (221,184 rows: seconds)
    timeout 60 script -qc "'$tplan' run bigcsv.lua --csv tty.csv --threads 2" /dev/null >tty.out 2>&1
    tr '\r' '\n' <tty.out | grep -aq '%  .* plans/s  ETA .* writing tty.csv' && ok ||
        bad "no progress line while a CSV is written"
fi
grep -aq 'configs/s' int.err && bad "a progress bar went into a pipe" || ok

# Lua code outside a sweep stops at the first SIGINT or SIGTERM, within
# 2 s, even inside pcall loops; a catalog being read stops too. Each
# script says it started (sig.ready) before the signal is sent: a slow
# start (a sanitizer build on a loaded machine took over 0.3 s) got the
# signal before the handler or while tplan's own Lua loaded.
printf 'io.open("sig.ready", "w"):close() while true do end\n' >spin.lua
printf 'io.open("sig.ready", "w"):close() while true do pcall(function() while true do end end) end\n' >pcall_spin1.lua
printf 'io.open("sig.ready", "w"):close()\ndofile(arg[1])\n' >ready.lua
# 2 s to end; under the sanitizers (ASAN_OPTIONS set: scripts/test.sh)
# 10 s, since their exit (LeakSanitizer's scan) alone took seconds on the
# loaded 2-core machine
stop_s=2
[ -n "${ASAN_OPTIONS:-}" ] && stop_s=10
# signal_run SIG SCRIPT STATUS "STDERR" [ARGS...]: the script gets SIG
# 0.3 s after it started and must end within stop_s with STATUS and that
# line last on stderr
signal_run() {
    local sig=$1 script=$2 want=$3 line=$4 pid rc waited=0
    shift 4
    rm -f sig.ready
    "$tplan" run "$script" "$@" >/dev/null 2>sig.err &
    pid=$!
    while [ ! -e sig.ready ] && kill -0 $pid 2>/dev/null && [ $waited -lt 600 ]; do
        sleep 0.1; waited=$((waited + 1)); done
    sleep 0.3
    kill -"$sig" $pid
    waited=0
    while kill -0 $pid 2>/dev/null && [ $waited -lt $((stop_s * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 $pid 2>/dev/null; then
        kill -9 $pid; wait $pid 2>/dev/null
        bad "SIG$sig to $script: still running $stop_s s later"
        return
    fi
    wait $pid
    rc=$?
    if [ "$rc" = "$want" ] && [ "$(tail -n 1 sig.err)" = "$line" ]; then ok; else
        bad "SIG$sig to $script: exit $rc, err '$(cat sig.err)'"; fi
}
signal_run INT spin.lua 130 "tplan: spin.lua:1: interrupted"
signal_run TERM spin.lua 143 "tplan: spin.lua:1: interrupted"
signal_run INT pcall_spin1.lua 130 "tplan: pcall_spin1.lua:1: interrupted"
# a running sweep (minutes of work) stops as fast and the script goes on
signal_run TERM ready.lua 143 "tplan: interrupted: the sweep stopped early; the plans kept are the best found before the stop" -- "$dir/lua/interrupt.lua"
signal_run INT ready.lua 130 "tplan: interrupted: the sweep stopped early; the plans kept are the best found before the stop" -- "$dir/lua/interrupt.lua"
rm -f feed.csv
mkfifo feed.csv
(printf 'name,memory_gib\n'; while true; do echo; sleep 0.01; done) >feed.csv 2>/dev/null &
feeder=$!
printf 'io.open("sig.ready", "w"):close() tplan.gpus.load("feed.csv")\nprint("loaded")\n' >feed.lua
signal_run TERM feed.lua 143 "tplan: feed.lua:1: tplan.gpus.load: interrupted while reading feed.csv"
kill $feeder 2>/dev/null
wait $feeder 2>/dev/null
# reading is bounded as it goes: /dev/zero is one endless line
printf 'tplan.gpus.load("/dev/zero")\n' >zero.lua
expect_run 1 "tplan: zero.lua:1: tplan.gpus.load: /dev/zero:1: a line of more than 1048576 bytes (not a CSV catalog?)" run zero.lua --max-memory 16
# stuck in one C call (a backtracking pattern): the first signal cannot
# reach Lua; a second one a second later ends the process at once
printf 'io.open("sig.ready", "w"):close() local s = string.rep("a", 40)\nprint(s:find(string.rep("a*", 30) .. "b"))\n' >cspin.lua
rm -f sig.ready
"$tplan" run cspin.lua >/dev/null 2>cspin.err &
pid=$!
for _ in $(seq 1 600); do [ -e sig.ready ] && break; sleep 0.1; done
sleep 0.3; kill -INT $pid; sleep 1.2; kill -INT $pid
# "at once": 0.5 s, or stop_s under the sanitizers (a loaded machine
# did not run the sanitizer build's exit within 0.5 s)
waited=0 at_once=5
[ -n "${ASAN_OPTIONS:-}" ] && at_once=$((stop_s * 10))
while kill -0 $pid 2>/dev/null && [ $waited -lt $at_once ]; do sleep 0.1; waited=$((waited + 1)); done
if kill -0 $pid 2>/dev/null; then kill -9 $pid; bad "a second SIGINT did not end a call stuck in C at once"; else
    wait $pid; rc=$?
    [ "$rc" = 130 ] && grep -q '^tplan: interrupted again: exiting now' cspin.err && ok ||
        bad "second SIGINT: exit $rc, err '$(cat cspin.err)'"
fi

# --- defects a reliability audit found (issue 20), one reproducer each ------
# the sweep's name read through an __index that clears it and collects
# garbage while the spec is read (ASan: no use after free)
printf 'local spec = {name = ("n"):rep(40) .. "y", axes = {gpus = {1, 2}}}\nsetmetatable(spec, {__index = function(t, k)\n  if k == "model" then rawset(t, "name", nil); collectgarbage(); return "gpt2" end\nend})\nlocal r = tplan.sweep(spec)\ncollectgarbage()\nr:csv("uaf.csv")\n' >uaf.lua
expect_run 0 "" run uaf.lua
[ "$(cut -d, -f1 uaf.csv | sort -u | tr '\n' ' ')" = "$(printf 'n%.0s' $(seq 40))y sweep " ] && ok ||
    bad "a sweep name cleared by __index: $(cut -d, -f1 uaf.csv | sort -u | tr '\n' ' ')"
# os.exit(0) in a finaliser at close cannot turn a script error into
# success, nor finish the outputs twice (the completed sweep's rows stay)
printf 'setmetatable({}, {__gc = function() os.exit(0) end})\nlocal r = tplan.sweep{name = "x", model = "gpt2", axes = {gpus = {1, 2}}}\nerror("boom")\n' >gcerr.lua
cp good.orig gcerr.csv
expect_run 1 "tplan: gcerr.lua:3: boom" run gcerr.lua --csv gcerr.csv
[ "$(wc -l <gcerr.csv)" = 3 ] && ok || bad "os.exit(0) at close after an error: $(wc -l <gcerr.csv) CSV lines"
# outputs follow symbolic links (the link stays); a link to nothing, a
# pipe, in-memory and empty database names are refused before any sweep
printf 'tplan.sweep{model = "gpt2", axes = {gpus = {1, 2}}}\n' >tiny.lua
echo old >target.csv
ln -sf target.csv link.csv
"$tplan" run tiny.lua --csv link.csv 2>/dev/null
[ -L link.csv ] && [ "$(wc -l <target.csv)" = 3 ] && ok || bad "--csv through a symbolic link: $(ls -l link.csv target.csv)"
ln -sf nowhere.csv dangling.csv
expect_run 1 "tplan: --csv: dangling.csv: a symbolic link to a file that does not exist: give the file's own path" run tiny.lua --csv dangling.csv
rm -f pipe.csv
mkfifo pipe.csv
expect_run 1 "tplan: --csv: pipe.csv is not a regular file (a device or a pipe): give - for standard output" run tiny.lua --csv pipe.csv
[ -p pipe.csv ] && ok || bad "a pipe named by --csv was replaced"
expect_run 1 "tplan: --db: '': an empty name: give the path of a database file" run tiny.lua --db ''
expect_run 1 "tplan: --db: ':memory:': SQLite's in-memory database: give the path of a database file" run tiny.lua --db :memory:
expect_run 1 "tplan: --db: 'file:x?mode=memory': a URI, not a file name: give the path of a database file" run tiny.lua --db 'file:x?mode=memory'
"$tplan" run tiny.lua --db merge_in.db 2>/dev/null
expect_run 1 "tplan: '': an empty name: give the path of a database file" merge '' merge_in.db
# --safe: /proc and /sys are out of reach (another process's environment),
# through links too; ordinary files stay readable
printf 'print(pcall(io.open, "/dev/fd/../../1/environ"))\nprint(pcall(io.open, "/proc/1/environ"))\nprint(select(2, pcall(tplan.gpus.load, "/proc/1/environ")))\nprint(pcall(io.lines, "/proc/self/status"))\nprint(pcall(io.input, "/proc/1/cmdline"))\nprint(pcall(loadfile, "/proc/self/status"))\nprint(pcall(dofile, "/proc/self/status"))\npackage.path = "/proc/self/?;" .. package.path\nprint(pcall(require, "status"))\nprint(io.open(arg[0]) ~= nil and io.lines(arg[0])() ~= nil and loadfile(arg[0]) ~= nil)\n' >proc.lua
out=$("$tplan" run proc.lua --safe 2>&1)
[ "$(printf '%s\n' "$out" | grep -c 'may not read')" = 8 ] && [ "$(printf '%s\n' "$out" | tail -1)" = true ] && ok ||
    bad "--safe and /proc: $out"
# a GPU with no fp32 rate times an fp32 plan at a rate it has, and says so
printf 'local g = tplan.gpu{name = "bf16only", memory_gib = 80, bf16_flops = 9e14}\nlocal p = tplan.plan{model = "gpt2", gpu = g, precision = "fp32"}\nprint(p.step_time_s > 0, p.warnings[1])\n' >nofp32.lua
[ "$("$tplan" run nofp32.lua 2>&1)" = "true	bf16only has no fp32 units: timed at the bf16 rate" ] && ok || bad "fp32 on a GPU without fp32: $("$tplan" run nofp32.lua 2>&1)"
# a 250-byte output name: its temporary name stays under 255 bytes
long=$(printf 'n%.0s' $(seq 1 246)).csv
"$tplan" run tiny.lua --csv "$long" 2>/dev/null && [ "$(wc -l <"$long")" = 3 ] && ok || bad "a 250-byte --csv name"
# a hard stop (a call stuck in C past --timeout) leaves no temporary behind
printf 'tplan.sweep{model = "gpt2", axes = {gpus = {1, 2}}}\nlocal s = string.rep("a", 40)\nprint(s:find(string.rep("a*", 30) .. "b"))\n' >cstuck.lua
"$tplan" run cstuck.lua --csv cstuck.csv --timeout 1 >/dev/null 2>&1
rc=$?
[ "$rc" = 124 ] && [ -z "$(ls -- cstuck.csv* 2>/dev/null)" ] && ok || bad "hard stop: exit $rc, left $(ls -- cstuck.csv* 2>/dev/null)"
# a --csv write that failed (file size limit) and then a hard stop: the
# signal handler removes the temporary by a name of its own, never the
# writer's freed one (ASan in the sanitizer run)
printf 'pcall(tplan.sweep, {model = "gpt2", keep = "all", axes = {gpus = {1, 2, 4, 8, 16, 32, 64, 128}, micro_batch = {1, 2, 3, 4, 5, 6, 7, 8}, seq = {256, 512, 1024}}})\nlocal s = string.rep("a", 40)\nprint(s:find(string.rep("a*", 30) .. "b"))\n' >fsize.lua
(trap '' XFSZ; ulimit -f 16; "$tplan" run fsize.lua --csv fsize.csv --timeout 1 >/dev/null 2>fsize.err)
rc=$?
[ "$rc" = 124 ] && [ -z "$(ls -- fsize.csv.tmp.* 2>/dev/null)" ] && ! grep -q 'AddressSanitizer' fsize.err && ok ||
    bad "a failed --csv then a hard stop: exit $rc, $(head -c 300 fsize.err)"
# os.exit(N, true): finalisers run by the close cannot change N
printf 'setmetatable({}, {__gc = function() os.exit(0) end})\nos.exit(3, true)\n' >exitclose.lua
expect_run 3 "" run exitclose.lua
# a model without FLOPs has no time or cost: nil in Lua, empty in CSV, and
# it ranks after every timed plan by cost
printf 'local p = tplan.plan{model = tplan.model{params = 1e9}, tokens = 1e12}\nassert(p.cost_usd == nil and p.time_h == nil and p.energy_kwh == nil and p.steps ~= nil)\nlocal r = tplan.sweep{model = tplan.model{params = 1e9}, tokens = 1e12, axes = {gpus = {1, 2}}}\nfor q in r:each() do assert(q.cost_usd == nil) end\nprint("ok")\n' >untimed.lua
[ "$("$tplan" run untimed.lua --csv untimed.csv 2>&1)" = ok ] && ok || bad "untimed plans: $("$tplan" run untimed.lua 2>&1)"
printf 'local r = tplan.sweep{tokens = 1e12, axes = {model = {tplan.model{params = 1e9, name = "noflops"}, "gpt2"}, gpus = {1, 2}}, rank = {"cost_usd"}}\nfor p in r:each() do io.write(p.model, " ") end\n' >mixrank.lua
[ "$("$tplan" run mixrank.lua 2>/dev/null)" = "gpt2 gpt2 noflops noflops " ] && ok || bad "untimed plans must rank last by cost: $("$tplan" run mixrank.lua 2>&1)"
[ "$(head -1 untimed.csv | tr ',' '\n' | grep -n '^cost_usd$' | cut -d: -f1)" != "" ] &&
    [ -z "$(sed -n 2p untimed.csv | cut -d, -f"$(head -1 untimed.csv | tr ',' '\n' | grep -n '^cost_usd$' | cut -d: -f1)")" ] && ok || bad "untimed cost in CSV is not empty"

# --- limits for scripts you did not write -----------------------------------
expect_run 124 "tplan: spin.lua:1: stopped: --timeout passed" run spin.lua --timeout 1
printf 'tplan.sweep{model = "gpt2", axes = {gpus = {1, 2, 4, 8}}, where = function() while true do end end}\n' >hook_spin.lua
"$tplan" run hook_spin.lua --timeout 1 >/dev/null 2>err.txt
rc=$?
[ "$rc" = 124 ] && grep -q 'stopped: --timeout passed' err.txt && ok || bad "a runaway where under --timeout: exit $rc $(cat err.txt)"
# a pcall loop cannot swallow the stop; a call stuck in C meets the hard stop
printf 'while true do pcall(function() while true do end end) end\n' >pcall_spin.lua
expect_run 124 "tplan: pcall_spin.lua:1: stopped: --timeout passed" run pcall_spin.lua --timeout 1
printf 'print(("a"):rep(40):find(("a*"):rep(30) .. "b"))\n' >c_spin.lua
expect_run 124 "tplan: the script did not stop within 5 s (a long call in C?): exiting now; committed database sweeps are kept" \
    run c_spin.lua --timeout 1
printf 'local t = {}\nfor i = 1, 1e9 do t[i] = ("x"):rep(100) .. i end\n' >mem.lua
"$tplan" run mem.lua --max-memory 32 >/dev/null 2>err.txt
rc=$?
[ "$rc" = 1 ] && [ "$(tail -n1 err.txt)" = "tplan: the script's Lua state reached --max-memory 32 MiB" ] && ok ||
    bad "--max-memory: exit $rc $(cat err.txt)"
expect_run 2 "tplan: --timeout must be an integer >= 1 (--timeout=0)" run one.lua --timeout 0
safe_case() { # CODE "MESSAGE"
    printf '%s\n' "$1" >safe.lua
    expect_run 1 "tplan: safe.lua:1: $2" run safe.lua --safe
}
safe_case 'os.execute("true")' "--safe: os.execute is not allowed"
safe_case 'io.popen("true")' "--safe: io.popen is not allowed"
safe_case 'os.remove("x")' "--safe: os.remove is not allowed"
safe_case 'os.rename("x", "y")' "--safe: os.rename is not allowed"
safe_case 'os.getenv("HOME")' "--safe: os.getenv is not allowed"
safe_case 'io.open("x.txt", "w")' "--safe: io.open may only read (mode 'w')"
safe_case 'io.open("x.txt", "a+")' "--safe: io.open may only read (mode 'a+')"
safe_case 'io.output("x.txt")' "--safe: io.output cannot open files"
safe_case 'package.loadlib("x.so", "f")' "--safe: package.loadlib is not allowed"
safe_case 'assert(load(string.dump(function() end)))' "attempt to load a binary chunk (mode is 't')"
safe_case 'assert(debug == nil and package.loaded.debug == nil); error("checked")' "checked"
safe_case 'io.tmpfile()' "--safe: io.tmpfile is not allowed"
safe_case 'io.open("/proc/self/environ")' "io.open: --safe: a script may not read /proc/self/environ (/proc and /sys hold other processes' secrets)"
printf 'return 1\n' >textmod.lua
printf 'package.path = "./?.lua"; assert(require("textmod") == 1); print("ok")\n' >req.lua
[ "$("$tplan" run req.lua --safe)" = ok ] && ok || bad "--safe must still require text modules"
# a precompiled module (written by a run without --safe) is refused
printf 'local f = assert(io.open("binmod.lua", "wb")); f:write(string.dump(function() return 2 end)); f:close()\n' >mkbin.lua
"$tplan" run mkbin.lua
safe_case 'package.path = "./?.lua"; require("binmod")' "--safe: ./binmod.lua: attempt to load a binary chunk (mode is 't')"
safe_case 'tplan.sweep{model = "gpt2"}:csv("x.csv")' "tplan.result:csv: --safe: a script may not write files (x.csv); name outputs with tplan run --csv/--db"
safe_case 'tplan.sweep{model = "gpt2"}:save("x.db")' "tplan.result:save: --safe: a script may not write files (x.db); name outputs with tplan run --csv/--db"
[ ! -e x.txt ] && [ ! -e x.csv ] && [ ! -e x.db ] && ok || bad "--safe let a file be written"
printf 'print(io.open(arg[0], "r") ~= nil)\n' >safe_read.lua
[ "$("$tplan" run safe_read.lua --safe)" = true ] && ok || bad "--safe must still read files"
"$tplan" run "$dir/lua/shard.lua" --safe --csv safe.csv >/dev/null 2>&1 && [ "$(wc -l <safe.csv)" -gt 50 ] && ok ||
    bad "--safe with --csv must write the run's own output"
# sweeps past 1e9 configurations need --yes, and say how big they are
printf 'tplan.sweep{name = "huge", model = "gpt2", axes = {gpus = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},\n  micro_batch = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, seq = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},\n  accum = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, price = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},\n  lr = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, overlap = {0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9},\n  nic_gbps = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, vpp = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},\n  zero = {0, 1, 2, 3}}}\n' >huge.lua
"$tplan" run huge.lua >/dev/null 2>err.txt
rc=$?
[ "$rc" = 1 ] && grep -q "^tplan: huge.lua:1: tplan.sweep: sweep 'huge' has 4e+09 configurations (about .* hours here); run with --yes to go ahead, or narrow the axes$" err.txt && ok ||
    bad "a 4e9 sweep must need --yes: exit $rc $(cat err.txt)"

finish
