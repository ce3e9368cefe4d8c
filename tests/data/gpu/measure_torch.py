#!/usr/bin/env python3
"""Measure peak GPU memory and step time of small training steps.

Runs Hugging Face transformers models (built from the config.json files
in tests/data/hf, random weights, random tokens) through a plain
training loop that does what transformers' Trainer does by default on
one GPU: torch.optim.AdamW(fused=True) ("adamw_torch_fused", the
Trainer's default optimizer from torch 2.8), the loss of
ForCausalLMLoss (model(input_ids, labels=...)), autocast for the amp
recipes, gradient checkpointing (non-reentrant) for full recomputation,
zero_grad(set_to_none=True).

For each configuration it records, after 2 warm-up steps and the timed
steps that follow:
  alloc_peak_bytes     torch.cuda.max_memory_allocated()
  reserved_peak_bytes  torch.cuda.max_memory_reserved()
  nonalloc_bytes       device memory in use (cudaMemGetInfo) minus
                       torch.cuda.memory_reserved(): the CUDA context
                       and library memory outside the caching allocator
  measured_peak_bytes  nonalloc_bytes + reserved_peak_bytes: the peak
                       nvidia-smi would show for the process
  measured_step_time_s median wall time of the timed steps
                       (torch.cuda.synchronize() around each)
A configuration that runs out of memory is recorded with oom=1.

Usage (on a machine with a CUDA GPU, PyTorch and transformers):
  python3 tests/data/gpu/measure_torch.py OUT.csv [--deadline SECONDS]
                                          [--set calibrate|validate|validate2|
                                                 expandable]
calibrate (the default) is the grid of h200_torch.csv, validate the
held-out one of h200_validate.csv. (h200_torch.csv was written before the
accum column and the validate set existed: its rows have accum 1.)
It stops starting configurations after the deadline and writes each row
as soon as it is measured, so an interrupted run keeps what it did; the
log's last line says whether the grid ended ("done") or was cut short
("deadline: stopped before row N"). OUT.csv must not exist yet.
"""
import argparse
import csv
import gc
import json
import os
import statistics
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
HF = os.path.join(HERE, "..", "hf")
WARM = 2
TIMED = 3

FIELDS = [
    "run", "model_config", "precision", "recompute", "attention", "seq",
    "micro_batch", "accum", "dropout", "lora_rank", "gpu_name", "gpu_total_bytes",
    "params", "trainable", "oom", "measured_step_time_s",
    "measured_peak_bytes", "alloc_peak_bytes", "reserved_peak_bytes",
    "nonalloc_bytes", "alloc_retries", "step_times_s", "torch",
    "transformers",
]


def configs(name):
    """The grid, most valuable first: a deadline cuts the tail. Each row:
    (model, recipe, recompute, attention, seq, micro-batch, LoRA rank or
    -1 for a probe row that stops its probe at the first OOM, accum)."""
    if name == "validate":
        return validate()
    if name == "validate2":
        return validate2()
    if name == "expandable":
        return expandable()
    out = []
    # GPT-2 (124M, dropout 0.1 as its config.json): every recipe
    for prec in ("amp-bf16", "bf16", "fp32", "amp-fp16"):
        for seq in (512, 1024):
            for mb in (1, 4, 16):
                for rc in ("none", "full"):
                    out.append(("gpt2", prec, rc, "sdpa", seq, mb, 0))
    # Llama-3.2-1B shape (1.24B): the 16-bit recipes, longer sequences
    for prec in ("amp-bf16", "bf16"):
        for seq in (1024, 2048, 4096):
            for mb in (1, 2, 4):
                for rc in ("none", "full"):
                    out.append(("llama3.2-1b", prec, rc, "sdpa", seq, mb, 0))
    # the score matrix kept (eager attention)
    for model, seq, mb in (("gpt2", 1024, 4), ("llama3.2-1b", 1024, 2)):
        for rc in ("none", "full"):
            out.append((model, "amp-bf16", rc, "eager", seq, mb, 0))
    # fp32 Llama (no TF32: PyTorch's default for matmuls)
    for mb in (1, 2):
        out.append(("llama3.2-1b", "fp32", "none", "sdpa", 1024, mb, 0))
    # LoRA (peft, rank 16 on every linear, frozen bf16 base, autocast)
    for seq, mb in ((2048, 1), (2048, 4)):
        for rc in ("none", "full"):
            out.append(("llama3.2-1b", "amp-bf16", rc, "sdpa", seq, mb, 16))
    # the largest micro-batch: up by one until out of memory
    for mb in range(5, 13):
        out.append(("llama3.2-1b", "amp-bf16", "none", "sdpa", 4096, mb,
                    -1))
    return [c + (1,) for c in out]


def validate():
    """Held out: models, shapes and accumulation the fit never saw, with
    tplan's predictions committed before the run (h200_validate.tsv)."""
    out = []
    for prec in ("amp-bf16", "bf16"):
        for seq in (2048, 4096):
            for mb in (2, 8):
                for rc in ("none", "full"):
                    out.append(("qwen2.5-0.5b", prec, rc, "sdpa", seq, mb, 0,
                                1))
    for rc in ("none", "full"):
        out.append(("qwen3-0.6b", "amp-bf16", rc, "sdpa", 4096, 4, 0, 1))
        out.append(("qwen3-0.6b", "bf16", rc, "sdpa", 2048, 8, 0, 1))
    for prec in ("amp-bf16", "bf16"):
        for mb in (1, 4):
            for rc in ("none", "full"):
                out.append(("llama3.2-3b", prec, rc, "sdpa", 2048, mb, 0, 1))
    # gradient accumulation: the gradients live through the forwards
    for rc in ("none", "full"):
        out.append(("llama3.2-1b", "amp-bf16", rc, "sdpa", 2048, 2, 0, 2))
    out.append(("qwen2.5-0.5b", "bf16", "none", "sdpa", 2048, 4, 0, 4))
    # the largest micro-batch: from tplan's (reserve 0) less one, up by one
    # until out of memory
    for model, prec, first in (("qwen2.5-0.5b", "amp-bf16", 8),
                               ("llama3.2-3b", "bf16", 4),
                               ("qwen3-0.6b", "amp-bf16", 6)):
        for mb in range(first, first + 4):
            out.append((model, prec, "none", "sdpa", 4096, mb, -1, 1))
    return out


def validate2():
    """Held out too, for an 80 GB H100: GPT-2 medium (the Python GELU),
    Pythia-160M (untied, parallel residual, partial rotary), accumulation
    under autocast, and two largest-micro-batch probes from below tplan's
    figure (h200_validate2_predicted.tsv, written before the run)."""
    out = []
    for prec in ("amp-bf16", "bf16"):
        for mb in (4, 16):
            for rc in ("none", "full"):
                out.append(("gpt2-medium", prec, rc, "sdpa", 1024, mb, 0, 1))
    for mb in (4, 16):
        for rc in ("none", "full"):
            out.append(("pythia-160m", "amp-bf16", rc, "sdpa", 2048, mb, 0, 1))
    out.append(("qwen2.5-0.5b", "amp-bf16", "none", "sdpa", 2048, 8, 0, 2))
    out.append(("llama3.2-1b", "bf16", "full", "sdpa", 4096, 4, 0, 1))
    # tplan's largest at reserve 0 on an H100: 3 and 5
    for model, prec, seq, first in (("llama3.2-1b", "amp-bf16", 4096, 2),
                                    ("qwen2.5-0.5b", "bf16", 4096, 4)):
        for mb in range(first, first + 4):
            out.append((model, prec, "none", "sdpa", seq, mb, -1, 1))
    return out


def expandable():
    """Some of h200_torch.csv's runs again, for a run with
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (the caller sets it
    before CUDA starts): the allocator's share and the largest
    micro-batch with it."""
    out = []
    for prec in ("amp-bf16", "bf16"):
        for seq, mb in ((1024, 4), (4096, 1), (4096, 4)):
            for rc in ("none", "full"):
                out.append(("llama3.2-1b", prec, rc, "sdpa", seq, mb, 0, 1))
    for rc in ("none", "full"):
        out.append(("gpt2", "amp-bf16", rc, "sdpa", 1024, 16, 0, 1))
    for mb in range(7, 12):
        out.append(("llama3.2-1b", "amp-bf16", "none", "sdpa", 4096, mb, -1,
                    1))
    return out


def free_all():
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def build(name, prec, attn, lora):
    import transformers
    with open(os.path.join(HF, name + ".json")) as f:
        d = json.load(f)
    try:
        cfg = transformers.AutoConfig.for_model(**d)
    except Exception:  # older or newer API: the class's own from_dict
        cfg = transformers.CONFIG_MAPPING[d["model_type"]].from_dict(d)
    cfg.use_cache = False
    with torch.device("cuda"):
        try:
            model = transformers.AutoModelForCausalLM.from_config(
                cfg, attn_implementation=attn)
        except TypeError:
            cfg._attn_implementation = attn
            model = transformers.AutoModelForCausalLM.from_config(cfg)
    if prec == "bf16" or lora > 0:
        model = model.to(torch.bfloat16)
    else:
        model = model.to(torch.float32)
    if lora > 0:
        import peft
        model = peft.get_peft_model(model, peft.LoraConfig(
            r=lora, lora_alpha=2 * lora, lora_dropout=0.0,
            target_modules="all-linear", task_type="CAUSAL_LM"))
    model.train()
    return model, cfg


def one(model, cfg, prec, rc, seq, mb, accum):
    """Runs WARM + TIMED steps of accum micro-batches each; returns
    (times, oom, optimizer)."""
    if rc == "full":
        model.gradient_checkpointing_enable(
            gradient_checkpointing_kwargs={"use_reentrant": False})
    else:
        model.gradient_checkpointing_disable()
    model.zero_grad(set_to_none=True)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5, fused=True)
    dtype = {"amp-bf16": torch.bfloat16, "amp-fp16": torch.float16}.get(prec)
    scaler = torch.amp.GradScaler("cuda") if prec == "amp-fp16" else None
    ids = torch.randint(0, cfg.vocab_size, (mb, seq), device="cuda")
    times = []
    try:
        for i in range(WARM + TIMED):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(accum):
                if dtype is not None:
                    with torch.autocast("cuda", dtype=dtype):
                        loss = model(input_ids=ids, labels=ids).loss
                else:
                    loss = model(input_ids=ids, labels=ids).loss
                if accum > 1:
                    loss = loss / accum
                if scaler is not None:
                    scaler.scale(loss).backward()
                else:
                    loss.backward()
                del loss
            if scaler is not None:
                scaler.step(opt)
                scaler.update()
            else:
                opt.step()
            opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            if i >= WARM:
                times.append(time.perf_counter() - t0)
        return times, False, opt
    except torch.OutOfMemoryError:
        return times, True, opt


def main():
    ap = argparse.ArgumentParser(description="peak memory and step time "
                                 "of small training steps")
    ap.add_argument("out", help="the CSV to write (one row per run, "
                    "written as each is measured)")
    ap.add_argument("--deadline", type=float, default=1e9,
                    help="start no run after this many seconds")
    ap.add_argument("--set", dest="grid", default="calibrate",
                    choices=("calibrate", "validate", "validate2",
                             "expandable"))
    args = ap.parse_args()
    out_path, deadline = args.out, args.deadline
    if os.path.exists(out_path):
        ap.error(f"{out_path} exists: give a new file")
    start = time.time()
    import transformers
    torch.cuda.init()
    a = torch.randn(256, 256, device="cuda")
    (a @ a).sum().item()  # cuBLAS initialised before the first row
    del a
    free_all()
    free, total = torch.cuda.mem_get_info()
    print(f"outside the allocator after cuBLAS init: "
          f"{total - free - torch.cuda.memory_reserved()} bytes", flush=True)
    props = torch.cuda.get_device_properties(0)
    print(f"{props.name} {props.total_memory} torch {torch.__version__} "
          f"transformers {transformers.__version__}", flush=True)
    f = open(out_path, "w", newline="")
    w = csv.DictWriter(f, FIELDS, lineterminator="\n")
    w.writeheader()
    f.flush()
    held = (None, None)
    model = cfg = None
    probe_oom = set()  # the probes (model, recipe, seq) that ran out
    grid = args.grid
    for n, (name, prec, rc, attn, seq, mb, lora, accum) in \
            enumerate(configs(grid)):
        if time.time() - start > deadline:
            print(f"deadline: stopped before row {n}", flush=True)
            break
        probe = lora < 0
        lora = max(lora, 0)
        if probe and (name, prec, seq) in probe_oom:
            continue
        key = (name, "bf16" if prec == "bf16" else "fp32", attn, lora)
        try:
            if held[0] != key:
                model = cfg = None
                free_all()
                model, cfg = build(name, prec, attn, lora)
                held = (key, None)
            free_all()
            times, oom, opt = one(model, cfg, prec, rc, seq, mb, accum)
            total = torch.cuda.mem_get_info()
            used = total[1] - total[0]
            reserved = torch.cuda.memory_reserved()
            stats = torch.cuda.memory_stats()
            row = {
                "run": f"{name}/{prec}/{rc}/{attn}/s{seq}/b{mb}"
                       + (f"/lora{lora}" if lora else "")
                       + (f"/a{accum}" if accum > 1 else ""),
                "model_config": f"tests/data/hf/{name}.json",
                "precision": prec, "recompute": rc,
                "attention": "flash" if attn == "sdpa" else "eager",
                "seq": seq, "micro_batch": mb, "accum": accum,
                "dropout": getattr(cfg, "resid_pdrop", 0.0) or 0.0,
                "lora_rank": lora, "gpu_name": props.name,
                "gpu_total_bytes": props.total_memory,
                "params": sum(p.numel() for p in model.parameters()),
                "trainable": sum(p.numel() for p in model.parameters()
                                 if p.requires_grad),
                "oom": int(oom),
                "measured_step_time_s":
                    f"{statistics.median(times):.6f}" if times and not oom
                    else "",
                "measured_peak_bytes":
                    used - reserved + torch.cuda.max_memory_reserved()
                    if not oom else "",
                "alloc_peak_bytes": torch.cuda.max_memory_allocated(),
                "reserved_peak_bytes": torch.cuda.max_memory_reserved(),
                "nonalloc_bytes": used - reserved,
                "alloc_retries": stats.get("num_alloc_retries", 0),
                "step_times_s": " ".join(f"{t:.6f}" for t in times),
                "torch": torch.__version__,
                "transformers": transformers.__version__,
            }
            del opt
            model.zero_grad(set_to_none=True)
            if probe and oom:
                probe_oom.add((name, prec, seq))
            w.writerow(row)
            f.flush()
            print(row["run"], "oom" if oom else
                  f"{row['measured_step_time_s']} s "
                  f"{row['measured_peak_bytes'] / 2**30:.3f} GiB", flush=True)
        except Exception as e:  # a row's failure must not lose the others
            print(f"row {n} {name}/{prec}/{rc}/{attn}/s{seq}/b{mb}: "
                  f"{type(e).__name__}: {str(e)[:300]}", flush=True)
            model = cfg = None
            held = (None, None)
        free_all()
    f.close()
    print(f"done in {time.time() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
