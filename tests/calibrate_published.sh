# shellcheck shell=bash disable=SC2154
# Sourced by tests/test_calibrate.sh (harness.sh's tplan, dir, ok, bad):
# calibration that never makes things worse (issue 34), on published
# runs and on runs made to be nonsense. Each tolerance says why.

# Narayanan et al. 2021 Table 2 (as scripts/accuracy_table2.sh): GPT
# 174.6B and 529.6B under DeepSpeed ZeRO-3 on A100s, published TFLOP/s per
# GPU turned into step times with tplan's own FLOPs per step (so the
# conversion cancels when the error is taken). Fields: billions, layers,
# hidden, heads, GPUs, batch, micro-batch, TFLOP/s per GPU.
t2_csv() { # OUT.csv BILLIONS
    echo "run,layers,hidden,heads,vocab,seq,gpu,gpus,zero,micro_batch,accum,recompute,attention,precision,measured_step_time_s" >"$1"
    while read -r b l h hd g batch mb pub; do
        [ "$b" = "$2" ] || continue
        fl=$("$tplan" calc --layers "$l" --hidden "$h" --heads "$hd" --vocab 51200 --seq 2048 \
            --gpu a100-80g --gpus "$g" --zero 3 --micro-batch "$mb" --accum $((batch / (g * mb))) \
            --recompute full --attention eager --precision mixed-fp16 --json | jq '.perf.hw_flops_per_step')
        echo "z3-${b}B-$g,$l,$h,$hd,51200,2048,a100-80g,$g,3,$mb,$((batch / (g * mb))),full,eager,mixed-fp16,$(awk -v f="$fl" -v p="$pub" -v g="$g" 'BEGIN { printf "%.6g", f / (p * 1e12 * g) }')" >>"$1"
    done <<'ROWS'
174.6 96 12288 96 384 1536 4 144
174.6 96 12288 96 768 1536 2 88
174.6 96 12288 96 1536 1536 1 44
529.6 105 20480 128 640 2560 4 138
529.6 105 20480 128 1120 2240 2 98
529.6 105 20480 128 2240 2240 1 48
ROWS
}
t2_csv z3fit.csv 174.6
t2_csv z3test.csv 529.6
# step-time errors of the 529.6B rows under profile $1 of file $2
t2_errors() {
    tail -n +2 z3test.csv | while IFS=, read -r run l h hd v s g gp z mb acc rc at pr meas; do
        "$tplan" calc --layers "$l" --hidden "$h" --heads "$hd" --vocab "$v" --seq "$s" --gpu "$g" \
            --gpus "$gp" --zero "$z" --micro-batch "$mb" --accum "$acc" --recompute "$rc" \
            --attention "$at" --precision "$pr" --framework-file "$2" --framework "$1" --json |
            jq -r --arg m "$meas" --arg r "$run" '"\($r) \(.perf.step_time_s / ($m | tonumber) - 1)"'
    done
}
# From tplan's defaults the three rows used to keep no term (the scan and
# the search over every candidate now reach zero3_bw_eff) ...
if "$tplan" calibrate z3fit.csv --name z3 -o z3.csv >z3.out 2>z3.err; then ok; else bad "calibrate Table 2 rows: $(cat z3.err)"; fi
grep -q "^  zero3_bw_eff  1 -> " z3.out && ok || bad "Table 2's ZeRO-3 rows fit zero3_bw_eff: $(head -4 z3.out)"
grep -q "^left-out median |error| of step time: 52.6% before the fit (base none), [0-9.]*% after$" z3.out && ok || bad "calibrate prints the left-out error before and after: $(grep left-out z3.out)"
# ... and from megatron-2021 (fitted to the same paper's Table 1: the
# same cluster, year and eager attention) the profile predicts the 529.6B
# rows within 15% in the paper's own measure, TFLOP/s per GPU (the
# issue's bar), and so in step time within 1/0.85 - 1 = 17.6%. Measured
# 2026-11-28: step +6.0%, +10.4%, -11.5% (TFLOP/s -5.6%, -9.4%, +13.0%).
# From megatron (today's) the 2240-GPU row is +17.5% in TFLOP/s; from the
# defaults the 640-GPU row is -20.4% in step time: the three 174.6B rows
# hold one compute-bound run (384 GPUs) and two bound by ZeRO-3 traffic,
# so left-out fits cannot pin a compute term and one term (3 runs) goes
# to the traffic (docs/accuracy.md).
if "$tplan" calibrate z3fit.csv --framework megatron-2021 --name z3m -o z3.csv >z3m.out 2>z3m.err; then ok; else bad "calibrate Table 2 rows from megatron-2021: $(cat z3m.err)"; fi
t2_errors z3m z3.csv >z3m.err.txt
[ "$(wc -l <z3m.err.txt)" = 3 ] && awk '{ e = 1 / (1 + $2) - 1; e = e < 0 ? -e : e; if (e > 0.15) bad = 1 } END { exit bad }' z3m.err.txt && ok ||
    bad "from megatron-2021, the 529.6B rows' TFLOP/s within 15%: $(tr '\n' ' ' <z3m.err.txt)"

# llm-foundry's A100-80GB rows, halved as scripts/calibrate_llmfoundry.sh
# halves them: calibrated from fsdp the other half's median error must not
# rise (issue 34: it went 3.2% -> 5.3%); from megatron it must fall by 30%
# or more (the issue's bar). Measured 2026-11-28: 3.34% -> 3.02%, 10.60%
# -> 4.14%. The A100-40GB halves differ: calibrated from fsdp on one, the
# other's median rose 3.19% -> 3.49% until a term had to improve most
# runs, not only their median (engine/calibrate.c better_runs); now no
# term is kept and it stays 3.19%.
if TPLAN=$tplan bash "$dir/../scripts/calibrate_llmfoundry.sh" --set a100-80g >lf.out 2>lf.err; then ok; else bad "calibrate_llmfoundry.sh: $(cat lf.err)"; fi
read -r b a < <(awk '/^fit on/ { base = $0 ~ /fsdp/ ? "fsdp" : "megatron" } $1 == "a100-80g" && base == "fsdp" { print $4 + 0, $5 + 0 }' lf.out)
awk -v b="${b:-0}" -v a="${a:-1}" 'BEGIN { exit !(b > 0 && a <= b) }' && ok || bad "from fsdp the held-out median error does not rise: $(cat lf.out)"
read -r b a < <(awk '/^fit on/ { base = $0 ~ /fsdp/ ? "fsdp" : "megatron" } $1 == "a100-80g" && base == "megatron" { print $4 + 0, $5 + 0 }' lf.out)
awk -v b="${b:-0}" -v a="${a:-1}" 'BEGIN { exit !(b > 0 && a <= 0.7 * b) }' && ok || bad "from megatron the held-out median error falls by 30%: $(cat lf.out)"
if TPLAN=$tplan bash "$dir/../scripts/calibrate_llmfoundry.sh" --set a100-40g --base fsdp >lf40.out 2>lf40.err; then ok; else bad "calibrate_llmfoundry.sh a100-40g: $(cat lf40.err)"; fi
read -r b a < <(awk '$1 == "a100-40g" { print $4 + 0, $5 + 0 }' lf40.out)
awk -v b="${b:-0}" -v a="${a:-1}" 'BEGIN { exit !(b > 0 && a <= b) }' && ok || bad "A100-40GB: from fsdp the held-out median error does not rise: $(cat lf40.out)"

# The median of an even count is the mean of the middle two: four runs
# measured so that tplan's prediction over them is 1.01, 1.02, 1.04,
# 1.08: the median error before the fit is 3.0% (the lower middle 2.0%).
echo "run,model,gpu,gpus,micro_batch,seq,measured_step_time_s" >even.csv
i=0
for e in 0.01 0.02 0.04 0.08; do
    i=$((i + 1))
    s=$("$tplan" calc --model llama3-8b --gpu a100-80g --gpus 8 --micro-batch $i --seq 2048 --json | jq '.perf.step_time_s')
    echo "e$i,llama3-8b,a100-80g,8,$i,2048,$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.9g", s / (1 + e) }')" >>even.csv
done
"$tplan" calibrate even.csv --name ev -o ev.csv >even.out 2>&1
grep -q "^median |error| *3.0% " even.out && ok || bad "an even count's median is the mean of the middle two: $(grep median even.out)"

# A profile records its fit's left-out error and calc shows it
want=$(awk '/^median \|error\|/ { gsub("%", "", $NF); print $NF / 100; exit }' cal.out)
jq_is "the profile records the left-out error" ".fields.calib_time_err == $want and .fields.calib_mem_err == 0" \
    calc "${B[@]}" --gpus 8 --micro-batch 1 --framework-file prof.csv --framework mine
"$tplan" calc "${B[@]}" --gpus 8 --micro-batch 1 --framework-file z3.csv --framework z3m |
    grep -q "^  calibrated: runs left out of the fit missed by a median [0-9.]*% (step time)$" && ok ||
    bad "calc prints the profile's left-out error"

# Nonsense is refused, exit 2, one line on stderr, no profile written:
# peaks measured without the CUDA context fit context_mib to 0 ...
awk -F, -v OFS=, 'NR > 1 { $13 = $13 - 700 * 1048576 } { print }' m.csv >noctx.csv
"$tplan" calibrate noctx.csv --name noctx -o noctx_prof.csv >noctx.out 2>noctx.err
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <noctx.err)" = 1 ] && grep -q "^tplan: noctx.csv: context_mib fitted to 0 MiB, below the 100 of any CUDA context" noctx.err &&
    [ ! -e noctx_prof.csv ] && ok || bad "a context fitted to 0 is refused (exit $rc): $(cat noctx.err)"
# ... steps three times faster than tplan's model can run them put the
# matmuls at the GPU's peak ...
awk -F, -v OFS=, 'NR > 1 { $12 = $12 / 3 } { print }' m.csv >fast.csv
"$tplan" calibrate fast.csv --name fast -o fast_prof.csv >fast.out 2>fast.err
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <fast.err)" = 1 ] && grep -q "^tplan: fast.csv: the fit puts run 1's matmuls at 100% of the GPU's peak" fast.err &&
    [ ! -e fast_prof.csv ] && ok || bad "matmuls at peak are refused (exit $rc): $(cat fast.err)"
# ... steps a thousand times slower than the model drive a term over a
# hundredfold from the base's value ...
awk -F, -v OFS=, 'NR > 1 { $12 = $12 * 1000 } { print }' m.csv >slow1k.csv
"$tplan" calibrate slow1k.csv --name s1k -o s1k_prof.csv >s1k.out 2>s1k.err
rc=$?
grep -q "^tplan: slow1k.csv: eff_h0 fitted to [0-9.e+]*, over 100 times from the base's 600: not a framework's difference; no profile written$" s1k.err &&
    [ "$rc" = 2 ] && [ ! -e s1k_prof.csv ] && ok || bad "a term fitted a hundredfold away is refused (exit $rc): $(cat s1k.err)"
# ... and runs four times slower and faster by turns, which no term
# explains, leave the left-out runs missed by over 50%
awk -F, -v OFS=, 'NR > 1 { $12 = $12 * (NR % 2 ? 4 : 0.25) } { print }' m.csv >wild.csv
"$tplan" calibrate wild.csv --name wild -o wild_prof.csv >wild.out 2>wild.err
rc=$?
[ "$(cat wild.err)" = "tplan: wild.csv: step time: the fit still misses runs left out of it by a median 160% (over 50%): these runs are not what tplan's model describes; no profile written" ] &&
    [ "$rc" = 2 ] && [ ! -e wild_prof.csv ] && ok || bad "a fit that misses by over 50% is refused (exit $rc): $(cat wild.err)"
# percentages stay readable however far off the base is
grep -qE '[0-9]{6}[0-9.]*%' s1k.out && bad "calibrate prints sane percentages: $(grep -m1 -E '[0-9]{6}[0-9.]*%' s1k.out)" || ok

# -o -: the profile alone on stdout, the report on stderr (issue 36)
"$tplan" calibrate m.csv --name dash -o - >dash.csv 2>dash.err
[ "$(head -c 12 dash.csv)" = "name,source," ] && [ "$(wc -l <dash.csv)" = 2 ] && grep -q "^calibrating dash" dash.err && ok ||
    bad "calibrate -o - writes only the profile to stdout: $(head -3 dash.csv)"
