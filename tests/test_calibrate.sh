#!/usr/bin/env bash
# tplan calibrate, the memory band and the calibrated-range warning.
# Recovery tests: runs "measured" as tplan predicts them under known
# terms (eff_scale 0.85, alloc_frac 0.07, context_mib 700); calibrating
# from the defaults must find those terms again, and a profile written
# must give calc and Lua the same plan. Usage: test_calibrate.sh TPLAN DIR
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"
command -v jq >/dev/null || { bad "jq is not installed: the JSON checks cannot run"; finish; exit 1; }
cd "$tmp" || exit 1

B=(--model llama3-8b --gpu a100-80g --precision amp-bf16 --zero 3 --recompute full)
H=run,model,gpu,precision,zero,recompute,attention,gpus,micro_batch,accum,seq,measured_step_time_s,measured_peak_bytes
echo "$H" >m.csv
i=0
while read -r g mb ga seq; do
    i=$((i + 1))
    step=$("$tplan" calc "${B[@]}" --gpus "$g" --micro-batch "$mb" --accum "$ga" --seq "$seq" \
        --eff-scale 0.85 --json | jq -r '.perf.step_time_s')
    peak=$("$tplan" calc "${B[@]}" --gpus "$g" --micro-batch "$mb" --accum "$ga" --seq "$seq" \
        --alloc-frac 0.07 --context-mib 700 --json | jq -r '.memory.total_bytes')
    echo "r$i,llama3-8b,a100-80g,amp-bf16,3,full,flash,$g,$mb,$ga,$seq,$step,$peak" >>m.csv
done <<'EOF'
8 1 4 4096
8 2 2 4096
16 2 2 2048
8 4 1 2048
32 1 2 8192
16 1 8 4096
EOF

if "$tplan" calibrate m.csv --name mine -o prof.csv >cal.out 2>cal.err; then ok; else bad "calibrate: $(cat cal.err)"; fi
grep -q "^  eff_scale     1 -> 0.85$" cal.out && ok || bad "calibrate finds eff_scale 0.85: $(head -5 cal.out)"
# zero3_bw_eff moves these runs too, but once eff_scale is fitted it lowers
# no left-out error: it is not fitted (cross-validated selection)
grep -q "zero3_bw_eff" cal.out && bad "calibrate fits a term that does not help: $(head -6 cal.out)" || ok
grep -q "^  (3 of the 8 terms these runs move kept" cal.out && ok || bad "calibrate says what it left out: $(head -6 cal.out)"
F=(--framework-file prof.csv --framework mine)
jq_is "the profile holds the recovered terms" '(.fields.eff_scale - 0.85 | fabs) < 0.001 and (.fields.alloc_frac - 0.07 | fabs) < 0.0007 and (.fields.context_mib - 700 | fabs) < 7' \
    calc "${B[@]}" --gpus 8 --micro-batch 1 "${F[@]}"
# the profile predicts a run it was fitted to within 0.5% (time and memory)
want_s=$(sed -n 2p m.csv | cut -d, -f12) want_b=$(sed -n 2p m.csv | cut -d, -f13)
jq_is "the profile reproduces a measured run" "((.perf.step_time_s / $want_s - 1) | fabs) < 0.005 and ((.memory.total_bytes / $want_b - 1) | fabs) < 0.005" \
    calc "${B[@]}" --gpus 8 --micro-batch 1 --accum 4 --seq 4096 "${F[@]}"
jq_is "the profile records the calibrated range" '.fields.calib_gpus_min == 8 and .fields.calib_gpus_max == 32 and .fields.calib_seq_min == 2048 and .fields.calib_seq_max == 8192 and .fields.calib_params_min == 8030261248' \
    calc "${B[@]}" --gpus 8 --micro-batch 1 "${F[@]}"
jq_is "a plan outside the range is warned about" '[.warnings[] | select(test("gpus 512 is above the 32 of framework mine.s calibration runs"))] | length == 1' \
    calc "${B[@]}" --gpus 512 --micro-batch 1 "${F[@]}"
jq_is "a plan inside the range is not" '[.warnings[] | select(test("calibration runs"))] | length == 0' \
    calc "${B[@]}" --gpus 16 --micro-batch 1 --seq 4096 "${F[@]}"
[ "$(grep -c '^median |error| .* 0.0% *0.0%$' cal.out)" = 2 ] && ok || bad "calibrate: the recovered fit's errors are 0: $(grep median cal.out)"
# Lua reads the same profile
cat >lua_prof.lua <<'LUA'
tplan.frameworks.load("prof.csv")
local p = tplan.plan{model = "llama3-8b", gpu = "a100-80g", gpus = 8, micro_batch = 1, framework = "mine"}
assert(math.abs(p.eff_scale - 0.85) < 0.001 and math.abs(p.alloc_frac - 0.07) < 0.0007, tostring(p.eff_scale))
print("ok")
LUA
[ "$("$tplan" run lua_prof.lua 2>&1)" = ok ] && ok || bad "Lua loads the calibrated profile: $("$tplan" run lua_prof.lua 2>&1)"

# no bound warning where the fit lands inside the ranges; runs 100 times
# slower than any efficiency explains (eff_scale stops at 0.01, 85 times
# slower than 0.85) pin it to its bound: warned, a judgement call (the
# profile still misses them by 15%, under the 50% that is refused)
grep -q "ends at its bound" cal.err && bad "a fit inside its ranges warns: $(cat cal.err)" || ok
awk -F, -v OFS=, 'NR > 1 { $12 = $12 * 100 } { print }' m.csv >slow.csv
if "$tplan" calibrate slow.csv --name slow -o slow_prof.csv >slow.out 2>slow.err; then ok; else bad "calibrate slow.csv: $(cat slow.err)"; fi
grep -q "^tplan: warning: calibrate: eff_scale ends at its bound" slow.err && ok || bad "a term at its bound is warned about: $(cat slow.err)"

# calibrating from a base keeps the base's other values
"$tplan" calibrate m.csv --framework megatron --name mega2 -o prof.csv >/dev/null 2>cal.err && ok || bad "calibrate --framework: $(cat cal.err)"
jq_is "a base framework's values stay in the profile" '.fields.profile == "megatron" and .fields.framework == "mega2"' calc "${B[@]}" --gpus 8 --micro-batch 1 --framework-file prof.csv --framework mega2
jq_is "an existing profile file keeps its other frameworks" '.fields.eff_scale == 0.85' calc "${B[@]}" --gpus 8 --micro-batch 1 "${F[@]}"
[ "$(tail -n +2 prof.csv | cut -d, -f1 | tr '\n' ' ')" = "mine mega2 " ] && ok || bad "profile rows: $(cut -d, -f1 prof.csv | tr '\n' ' ')"

# bad input: one line naming the file, the line, the column and the value
head -3 m.csv >two.csv
expect_error 2 "tplan: two.csv: 2 runs: calibration needs at least 3" calibrate two.csv --name x -o p.csv
sed '1s/^run,/bogus,/' m.csv >bogus.csv
expect_error 2 "tplan: bogus.csv:1: column bogus: not a plan field, a model shape column or a measured_* column (tplan fields; tplan calc --help)" calibrate bogus.csv --name x -o p.csv
cut -d, -f1-8,10- m.csv >nomb.csv
expect_error 2 "tplan: nomb.csv:1: no micro_batch column: give the micro-batch each run used" calibrate nomb.csv --name x -o p.csv
cut -d, -f1-11 m.csv >nomeas.csv
expect_error 2 "tplan: nomeas.csv:1: no measured_step_time_s, measured_tokens_per_s or measured_peak_bytes column: nothing to calibrate to" calibrate nomeas.csv --name x -o p.csv
sed '3s/,[^,]*$/,abc/' m.csv >badv.csv
expect_error 2 "tplan: badv.csv:3: measured_peak_bytes: 'abc': a positive number" calibrate badv.csv --name x -o p.csv
sed '4s/,2048,/,0,/' m.csv >badseq.csv
expect_error 2 "tplan: badseq.csv:4: seq: 0: out of range (valid: an integer from 1 to 100000000)" calibrate badseq.csv --name x -o p.csv
sed '2s/,1,4,4096,/,max,4,4096,/' m.csv >mbmax.csv
expect_error 2 "tplan: mbmax.csv:2: micro_batch: max: give the micro-batch the run used" calibrate mbmax.csv --name x -o p.csv
sed '1s/^run,/framework,/' m.csv >fw.csv
expect_error 2 "tplan: fw.csv:1: column framework: the base framework is calibrate's --framework, for every run" calibrate fw.csv --name x -o p.csv
expect_error 2 "tplan: --name FSDP: a built-in framework's name: give yours one of its own" calibrate m.csv --name FSDP -o p.csv
expect_error 2 "tplan: -o ./prof.csv is the --framework-file the base comes from: give the profile another file" calibrate m.csv --framework-file prof.csv --framework mine --name x -o ./prof.csv
expect_error 2 "tplan: -o m.csv is MEASURED.csv: give the profile a file of its own" calibrate m.csv --name x -o m.csv
expect_error 2 "tplan: calibrate: give --name NAME for the profile" calibrate m.csv -o p.csv
expect_error 2 "tplan: calibrate: give -o PROFILE.csv for the profile" calibrate m.csv --name x
expect_error 1 "tplan: cannot open nosuch.csv: No such file or directory" calibrate nosuch.csv --name x -o p.csv
printf 'a,b\n1,2\n' >notprof.csv
cp notprof.csv notprof.orig
expect_error 2 "tplan: -o notprof.csv: not a framework file tplan can add to (notprof.csv:1: column a: not a plan input (tplan fields lists them)): give another path" calibrate m.csv --name x -o notprof.csv
cmp -s notprof.csv notprof.orig && ok || bad "a file that is not a profile is left as it was"
[ ! -e p.csv ] && ok || bad "a failed calibration writes no profile"

# calibration that never makes things worse (issue 34)
# shellcheck source=tests/calibrate_published.sh
. "$dir/calibrate_published.sh"

# the memory band and how sure the verdict is
M=(calc --model llama3-8b --gpu h100-sxm --gpus 8 --zero 3 --recompute full)
jq_is "the band is total x (1 - lo) .. (1 + hi)" '.memory.total_bytes_lo == (.memory.total_bytes * 0.99 | round) and .memory.total_bytes_hi == (.memory.total_bytes * 1.05 | round) and .fields.total_bytes_hi == .memory.total_bytes_hi' "${M[@]}" --micro-batch 1 --mem-band-hi 0.05
jq_is "a small plan fits for sure" '.memory.fits and .memory.fit_confidence == "yes"' "${M[@]}" --micro-batch 1
jq_is "the largest micro-batch with a wide band: likely" '.memory.fits and .memory.fit_confidence == "likely"' "${M[@]}" --mem-band-hi 0.5
mb=$("$tplan" "${M[@]}" --json | jq '.fields.max_micro_batch')
jq_is "one past the largest, the low end inside: unlikely" '(.memory.fits | not) and .memory.fit_confidence == "unlikely"' "${M[@]}" --micro-batch $((mb + 1)) --mem-band-lo 0.5
jq_is "far past it: no" '(.memory.fits | not) and .memory.fit_confidence == "no"' "${M[@]}" --micro-batch $((mb * 4))
jq_is "the allocator's share is of the allocated bytes" '.memory.alloc_bytes > 0 and ((.memory.alloc_bytes - 0.1 * (.memory.total_bytes - .memory.context_bytes - .memory.alloc_bytes)) | fabs) < 2' "${M[@]}" --micro-batch 1 --alloc-frac 0.1
a=$("$tplan" "${M[@]}" --json | jq '.fields.max_micro_batch')
b=$("$tplan" "${M[@]}" --alloc-frac 0.5 --json | jq '.fields.max_micro_batch')
[ "$b" -lt "$a" ] && ok || bad "the allocator's share lowers the largest micro-batch ($a -> $b)"
"$tplan" "${M[@]}" --micro-batch 1 | grep -q "^fits: yes (confidence: yes)$" && ok || bad "calc prints the confidence"
expect_error 2 "tplan: calib_gpus_min: 64 is above calib_gpus_max 8" "${M[@]}" --calib-gpus-min 64 --calib-gpus-max 8
# the band's high end stays inside the int64 contract
expect_error 2 "tplan: per-GPU memory out of range (over 1e18 bytes): check seq, micro_batch and the model's sizes (seq=8192, micro_batch=14000000)" calc --model llama3-8b --micro-batch 14000000 --seq 8192 --mem-band-hi 10
finish
