#!/usr/bin/env python3
"""Fit the per-GPU efficiency model of tplan to llm-foundry's throughput table
(tests/data/throughput_llmfoundry_half.json). A development tool: it needs
python3 and a built tplan; CI does not run it. Its output chose EFF_A100 and
EFF_H100 in engine/hardware.c (see docs/MODEL.md section 8.2).
Coordinate descent on the mean |relative error| of tokens/s (median as a tie
break), per GPU family.
Usage: scripts/calibrate_efficiency.py DATA.json build/cli/tplan"""
import json, subprocess, sys, statistics
from concurrent.futures import ThreadPoolExecutor

data, tplan = sys.argv[1], sys.argv[2]
rows = [r for r in json.load(open(data)) if r['kind'] == 'throughput']
GPU = {'a100_40gb': 'a100-40g', 'a100_80gb': 'a100-80g', 'h100_80gb': 'h100-sxm'}
PREC = {'amp_bf16': 'amp-bf16', 'bf16': 'bf16', 'amp_fp8': 'fp8'}

def args(r):
    c = r['config']
    return [tplan, 'calc', '--layers', str(c['layers_yaml']), '--hidden', str(c['d_model_yaml']),
            '--heads', str(c['heads_yaml']), '--ffn', str(c['ffn']), '--vocab', str(c['vocab']),
            '--pos', 'rotary', '--no-bias', '--norm', 'layernorm', '--tied', '--dropout', '0',
            '--seq', str(c['seq_len']), '--gpu', GPU[c['gpu']], '--gpus', str(c['GPUs']),
            '--gpus-per-node', '8', '--zero', '2' if c['fsdp_sharding'] == 'SHARD_GRAD_OP' else '3',
            '--precision', PREC[c['precision']], '--micro-batch', str(c['micro_batch']),
            '--accum', str(c['grad_accum']), '--recompute', 'full' if c['activation_checkpointing'] else 'none',
            '--attention', 'flash', '--json']

def err(r, p):
    extra = []
    for k, v in p.items():
        extra += ['--' + k, repr(v)]
    out = subprocess.run(args(r) + extra, capture_output=True, text=True, check=True).stdout
    pred = json.loads(out)['perf']['tokens_per_s']
    return abs(pred - r['value']['tokens_per_s']) / r['value']['tokens_per_s']

def score(rs, p):
    with ThreadPoolExecutor(4) as ex:
        e = list(ex.map(lambda r: err(r, p), rs))
    return statistics.median(e), statistics.mean(e)

fams = {'a100': [r for r in rows if r['config']['gpu'].startswith('a100')],
        'h100': [r for r in rows if r['config']['gpu'].startswith('h100')]}
grid = {'eff-max': [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9],
        'eff-h0': [0, 200, 400, 600, 800, 1000, 1400, 2000],
        'eff-tok0': [0, 64, 128, 256, 512, 1024, 2048],
        'attn-eff': [0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5],
        'fp8-ratio': [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8]}
start = {'a100': {'eff-max': 0.78, 'eff-h0': 600, 'eff-tok0': 128, 'attn-eff': 0.3},
         'h100': {'eff-max': 0.62, 'eff-h0': 1000, 'eff-tok0': 128, 'attn-eff': 0.3, 'fp8-ratio': 0.67}}
for fam, rs in fams.items():
    p = dict(start[fam])
    best = score(rs, p)
    for sweep in range(3):
        for k in list(p):
            for v in grid[k]:
                q = dict(p); q[k] = v
                s = score(rs, q)
                # primary: mean |error| (robust to few outliers yet uses all rows); tie: median
                if (s[1], s[0]) < (best[1], best[0]):
                    best, p = s, q
        print(fam, 'sweep', sweep, p, 'median %.3f mean %.3f' % best, flush=True)
    print('FINAL', fam, p, 'median %.3f mean %.3f' % best, 'rows', len(rs), flush=True)
