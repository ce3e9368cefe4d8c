#!/usr/bin/python3
"""Activation bytes saved for backward by real PyTorch autograd on CPU.

Measures Llama-style decoder layers (tests/data/torch_cpu_llama.csv) and
BERT-style encoder layers (tests/data/torch_cpu_bert.csv), written in plain
torch ops that follow Hugging Face transformers' eager code op for op:

- Llama (src/transformers/models/llama/modeling_llama.py): LlamaRMSNorm
  (x.to(float32), pow(2).mean, x * rsqrt(var + eps), weight *
  x.to(input_dtype)); separate q, k, v, o projections without bias; rotary
  embeddings computed once per forward in fp32 and cast to the activations'
  dtype, applied as q * cos + rotate_half(q) * sin; repeat_kv (expand +
  reshape) when kv heads < heads; eager attention: matmul, * scaling, + a
  float causal mask in the embeddings' dtype, softmax(dtype=float32)
  .to(q.dtype), dropout (p = 0 as Llama configs), matmul, transpose
  .contiguous(), o_proj; SwiGLU MLP down(silu(gate(x)) * up(x)); residual
  adds; final RMSNorm, lm_head, and transformers' ForCausalLMLoss
  (logits.float(), labels padded with -100 and shifted, cross_entropy).
- BERT (src/transformers/models/bert/modeling_bert.py): word + position +
  token-type embeddings, LayerNorm, dropout; BertSelfAttention eager
  (separate query, key, value Linears, matmul, / sqrt(d), + extended
  mask, softmax, dropout on the probabilities, matmul), BertSelfOutput
  (dense, dropout, LayerNorm(x + input)), BertIntermediate (dense, exact
  GELU), BertOutput (dense, dropout, LayerNorm(x + input)); MLM head
  (dense, GELU, LayerNorm, decoder with bias) and CrossEntropyLoss on the
  logits as they are (BertForMaskedLM does not upcast).

Counting: a saved_tensors_hooks pack hook records every tensor autograd
saves; each distinct storage is counted once (its whole nbytes), storages
of parameters are left out, and storages derived from a parameter only
by views and casts (autocast's 16-bit weight copies) are counted apart
(layer_param_copy_bytes). A storage belongs to the part (embedding, layer
i, head, loss) that saves it first, except the rotary cos/sin, which the
model computes once and which are counted with the embedding (rope_bytes).
Two layers are built; the second one's bytes are reported (the first
equals it, except under checkpointing, where the first also holds the
inputs the blocks share, the mask and BERT's extended mask, which the
reentrant checkpoint saves once: the script warns about those rows). Under non-reentrant checkpointing torch
1.13 saves through its own inner hooks, so the outer hook sees nothing
from inside the block: what the block keeps is its input, held by the
checkpoint's closure, and that storage is counted (as the reentrant
checkpoint's save_for_backward does). Only the forward is run: what is
saved at its end is what the backward needs.

Precision: fp32; bf16 = torch.autocast("cpu", dtype=torch.bfloat16) over
a fp32 model; bf16_pure = model and inputs cast to bf16. fp16: the script
tries CPU autocast with float16 and a model cast to fp16 and reports what
torch does (see probe()); under torch 1.13.1 CPU autocast supports only
bfloat16 (it warns and disables itself for float16), so no fp16 row is
written. dropout_impl: torch = F.dropout (on CPU it saves a mask in the
activation dtype), native = torch.native_dropout (1-byte bool mask, as the
CUDA kernel saves).

Usage: /usr/bin/python3 tests/data/measure_cpu_activations.py [--probe]
(Debian's python3-torch; about a minute on two cores). Writes both csv
files next to this script.
"""
import math
import os
import sys
import warnings

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

HERE = os.path.dirname(os.path.abspath(__file__))


def storage_key(t):
    st = t.storage()
    return st.data_ptr(), st.nbytes()


VIEWS_AND_CASTS = {"ToCopyBackward0", "TBackward0", "TransposeBackward0", "ViewBackward0",
                   "PermuteBackward0", "ExpandBackward0", "UnsafeViewBackward0",
                   "ReshapeAliasBackward0", "AliasBackward0"}


def from_param_only(t, params):
    """True when t comes from a parameter through views and casts only."""
    fn = t.grad_fn
    for _ in range(8):
        if fn is None:
            return False
        if type(fn).__name__ == "AccumulateGrad":
            return any(fn.variable is p for p in params)
        if type(fn).__name__ not in VIEWS_AND_CASTS:
            return False
        nxt = [f for f, _ in fn.next_functions if f is not None]
        if len(nxt) != 1:
            return False
        fn = nxt[0]
    return False


class Meter:
    def __init__(self, params):
        self.params = list(params)
        self.param_ptrs = {p.storage().data_ptr() for p in self.params}
        self.seen = {}
        self.owner = {}
        self.region = "embed"

    def own(self, t, region):
        self.owner[storage_key(t)[0]] = region

    def add(self, t, region=None):
        if t.numel() == 0 and t.dim() > 0:
            return
        ptr, nbytes = storage_key(t)
        if ptr in self.param_ptrs or ptr in self.seen:
            return
        reg = region or self.owner.get(ptr, self.region)
        kind = "copy" if t.requires_grad and from_param_only(t, self.params) else "act"
        self.seen[ptr] = (reg, nbytes, str(t.dtype).replace("torch.", ""), kind)

    def pack(self, t):
        self.add(t)
        return t

    def total(self, region, kind="act", dtype=None):
        return sum(n for r, n, d, k in self.seen.values()
                   if r == region and k == kind and (dtype is None or d == dtype))


def dropout(x, p, impl):
    if impl == "native":
        return torch.native_dropout(x, p, True)[0] if p > 0 else x
    return F.dropout(x, p, True)


def linear(x, w, b=None):
    return F.linear(x, w, b)


# ---------------------------------------------------------------- Llama
def llama_params(cfg, dtype):
    h, a, kv, f, V = cfg["h"], cfg["a"], cfg["kv"], cfg["ffn"], cfg["V"]
    d = h // a
    g = torch.Generator().manual_seed(0)

    def P(*shape):
        return torch.nn.Parameter((torch.randn(*shape, generator=g) * 0.02).to(dtype))

    layers = []
    for _ in range(2):
        layers.append(dict(ln1=torch.nn.Parameter(torch.ones(h, dtype=dtype)),
                           wq=P(a * d, h), wk=P(kv * d, h), wv=P(kv * d, h),
                           wo=P(h, a * d),
                           ln2=torch.nn.Parameter(torch.ones(h, dtype=dtype)),
                           wg=P(f, h), wu=P(f, h), wd=P(h, f)))
    top = dict(emb=P(V, h), norm=torch.nn.Parameter(torch.ones(h, dtype=dtype)),
               head=P(V, h))
    allp = [p for L in layers for p in L.values()] + list(top.values())
    return layers, top, allp


def rmsnorm(x, w, eps=1e-6):
    dt = x.dtype
    x = x.to(torch.float32)
    var = x.pow(2).mean(-1, keepdim=True)
    x = x * torch.rsqrt(var + eps)
    return w * x.to(dt)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    b, kv, s, d = x.shape
    if n_rep == 1:
        return x
    x = x[:, :, None, :, :].expand(b, kv, n_rep, s, d)
    return x.reshape(b, kv * n_rep, s, d)


def llama_layer(L, x, cos, sin, mask, cfg):
    a, kv = cfg["a"], cfg["kv"]
    b, s, h = x.shape
    d = h // a
    res = x
    x = rmsnorm(x, L["ln1"])
    q = linear(x, L["wq"]).view(b, s, a, d).transpose(1, 2)
    k = linear(x, L["wk"]).view(b, s, kv, d).transpose(1, 2)
    v = linear(x, L["wv"]).view(b, s, kv, d).transpose(1, 2)
    c, sn = cos.unsqueeze(1), sin.unsqueeze(1)
    q = (q * c) + (rotate_half(q) * sn)
    k = (k * c) + (rotate_half(k) * sn)
    k = repeat_kv(k, a // kv)
    v = repeat_kv(v, a // kv)
    w = torch.matmul(q, k.transpose(2, 3)) * d ** -0.5
    w = w + mask[:, :, :, : k.shape[-2]]
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    w = F.dropout(w, p=cfg["attn_p"], training=True)
    o = torch.matmul(w, v).transpose(1, 2).contiguous().reshape(b, s, -1)
    x = res + linear(o, L["wo"])
    res = x
    x = rmsnorm(x, L["ln2"])
    x = linear(F.silu(linear(x, L["wg"])) * linear(x, L["wu"]), L["wd"])
    return res + x


def llama_forward(meter, layers, top, cfg, ids, labels, ckpt):
    b, s = ids.shape
    meter.region = "embed"
    x = F.embedding(ids, top["emb"])
    # LlamaRotaryEmbedding: fp32 with autocast off, then cast to x's dtype
    d = cfg["h"] // cfg["a"]
    inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    pos = torch.arange(s)[None, :]
    with torch.autocast("cpu", enabled=False):
        fr = (inv[None, :, None].float().expand(1, -1, 1) @ pos[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((fr, fr), dim=-1)
        cos, sin = emb.cos(), emb.sin()
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    meter.own(cos, "rope")
    meter.own(sin, "rope")
    mn = torch.finfo(x.dtype).min
    mask = torch.triu(torch.full((s, s), mn, dtype=x.dtype), 1)[None, None]
    for i, L in enumerate(layers):
        meter.region = "layer%d" % i
        if ckpt == "none":
            x = llama_layer(L, x, cos, sin, mask, cfg)
        else:
            if ckpt == "nonreentrant":
                meter.add(x)  # held by the checkpoint's closure
            x = checkpoint(llama_layer, L, x, cos, sin, mask, cfg,
                           use_reentrant=(ckpt == "reentrant"))
    meter.region = "head"
    x = rmsnorm(x, top["norm"])
    logits = linear(x, top["head"])
    meter.region = "loss"
    logits = logits.float()
    lab = F.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
    return F.cross_entropy(logits.view(-1, cfg["V"]), lab.view(-1), ignore_index=-100)


# ----------------------------------------------------------------- BERT
def bert_params(cfg, dtype):
    h, f, V, s = cfg["h"], cfg["ffn"], cfg["V"], cfg["s"]
    g = torch.Generator().manual_seed(0)

    def P(*shape):
        return torch.nn.Parameter((torch.randn(*shape, generator=g) * 0.02).to(dtype))

    def ones(n):
        return torch.nn.Parameter(torch.ones(n, dtype=dtype))

    def zeros(n):
        return torch.nn.Parameter(torch.zeros(n, dtype=dtype))

    layers = []
    for _ in range(2):
        layers.append(dict(wq=P(h, h), bq=zeros(h), wk=P(h, h), bk=zeros(h),
                           wv=P(h, h), bv=zeros(h), wo=P(h, h), bo=zeros(h),
                           g1=ones(h), b1=zeros(h), wi=P(f, h), bi=zeros(f),
                           wo2=P(h, f), bo2=zeros(h), g2=ones(h), b2=zeros(h)))
    top = dict(word=P(V, h), pos=P(s, h), tt=P(2, h), eg=ones(h), eb=zeros(h),
               tw=P(h, h), tb=zeros(h), tg=ones(h), tbn=zeros(h), dec_b=zeros(V))
    allp = [p for L in layers for p in L.values()] + list(top.values())
    return layers, top, allp


def bert_layer(L, x, ext, cfg):
    a, p, impl = cfg["a"], cfg["p"], cfg["impl"]
    b, s, h = x.shape
    d = h // a

    def heads(t):
        return t.view(b, s, a, d).permute(0, 2, 1, 3)

    q = heads(linear(x, L["wq"], L["bq"]))
    k = heads(linear(x, L["wk"], L["bk"]))
    v = heads(linear(x, L["wv"], L["bv"]))
    sc = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)
    sc = sc + ext
    pr = F.softmax(sc, dim=-1)
    pr = dropout(pr, p, impl)
    c = torch.matmul(pr, v).permute(0, 2, 1, 3).contiguous().view(b, s, h)
    y = dropout(linear(c, L["wo"], L["bo"]), p, impl)
    x = F.layer_norm(y + x, (h,), L["g1"], L["b1"], 1e-12)
    y = F.gelu(linear(x, L["wi"], L["bi"]))
    y = dropout(linear(y, L["wo2"], L["bo2"]), p, impl)
    return F.layer_norm(y + x, (h,), L["g2"], L["b2"], 1e-12)


def bert_forward(meter, layers, top, cfg, ids, labels, ckpt):
    b, s = ids.shape
    h = cfg["h"]
    meter.region = "embed"
    # the position_ids and token_type_ids buffers (max positions = s here)
    pos = torch.arange(s)[None, :]
    tt = torch.zeros(1, s, dtype=torch.long).expand(b, s)
    x = F.embedding(ids, top["word"]) + F.embedding(tt, top["tt"]) + F.embedding(pos, top["pos"])
    x = F.layer_norm(x, (h,), top["eg"], top["eb"], 1e-12)
    x = dropout(x, cfg["p"], cfg["impl"])
    # get_extended_attention_mask: (1 - mask) * finfo(dtype).min in the
    # embeddings' dtype; all ones here (no padding)
    am = torch.ones(b, s, dtype=x.dtype)
    ext = (1.0 - am[:, None, None, :]) * torch.finfo(x.dtype).min
    for i, L in enumerate(layers):
        meter.region = "layer%d" % i
        if ckpt == "none":
            x = bert_layer(L, x, ext, cfg)
        else:
            if ckpt == "nonreentrant":
                meter.add(x)
            x = checkpoint(bert_layer, L, x, ext, cfg, use_reentrant=(ckpt == "reentrant"))
    meter.region = "head"
    y = F.gelu(linear(x, top["tw"], top["tb"]))
    if torch.is_autocast_cpu_enabled():
        # torch 1.13's CPU autocast leaves layer_norm alone and the op
        # refuses a bf16 input with fp32 weights (RuntimeError "expected
        # scalar type BFloat16 but found Float"); CUDA autocast has
        # layer_norm on its fp32 list and casts the input: do that
        y = y.float()
    y = F.layer_norm(y, (h,), top["tg"], top["tbn"], 1e-12)
    logits = linear(y, top["word"], top["dec_b"])  # tied decoder
    meter.region = "loss"
    return F.cross_entropy(logits.view(-1, cfg["V"]), labels.view(-1))


# ------------------------------------------------------------------ run
def measure(style, cfg, precision, ckpt):
    dtype = torch.bfloat16 if precision == "bf16_pure" else torch.float32
    mk = llama_params if style == "llama" else bert_params
    layers, top, allp = mk(cfg, dtype)
    meter = Meter(allp)
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, cfg["V"], (cfg["b"], cfg["s"]), generator=g)
    labels = torch.randint(0, cfg["V"], (cfg["b"], cfg["s"]), generator=g)
    fwd = llama_forward if style == "llama" else bert_forward
    torch.manual_seed(0)
    with torch.autograd.graph.saved_tensors_hooks(meter.pack, lambda t: t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=(precision == "bf16")):
            loss = fwd(meter, layers, top, cfg, ids, labels, ckpt)
    l0, l1 = meter.total("layer0"), meter.total("layer1")
    if l0 != l1:
        print("warning: layer 0 %d != layer 1 %d bytes (%s %s %s)" % (l0, l1, style, precision, cfg),
              file=sys.stderr)
    del loss
    r = {}
    r["layer_bytes"] = l1
    for dt in ("float32", "bfloat16", "bool"):
        r["layer_%s_bytes" % dt] = meter.total("layer1", dtype=dt)
    r["layer_param_copy_bytes"] = meter.total("layer1", kind="copy")
    r["rope_bytes"] = meter.total("rope")
    r["embed_bytes"] = meter.total("embed") + r["rope_bytes"]
    r["head_bytes"] = meter.total("head")
    r["loss_bytes"] = meter.total("loss")
    r["nonlayer_bytes"] = r["embed_bytes"] + r["head_bytes"] + r["loss_bytes"]
    return r


def probe():
    """What CPU autocast does with float16 and which ops it keeps in fp32."""
    out = ["torch %s" % torch.__version__]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            with torch.autocast("cpu", dtype=torch.float16):
                en = torch.is_autocast_cpu_enabled()
                y = F.linear(torch.randn(4, 8), torch.randn(8, 8))
            res = "enabled=%s linear->%s" % (en, y.dtype)
        except RuntimeError as e:
            res = "RuntimeError: %s" % str(e).splitlines()[0]
        out.append("autocast cpu float16: %s; warnings: %s"
                   % (res, [str(m.message).splitlines()[0] for m in w]))
    for name, fn in (("linear", lambda x: F.linear(x, torch.randn(8, 8, dtype=x.dtype))),
                     ("addmm", lambda x: torch.addmm(torch.zeros(4, 8, dtype=x.dtype), x, torch.randn(8, 8, dtype=x.dtype)))):
        try:
            y = fn(torch.randn(4, 8).half())
            out.append("pure fp16 %s on CPU: ok (%s)" % (name, y.dtype))
        except RuntimeError as e:
            out.append("pure fp16 %s on CPU: %s" % (name, str(e).splitlines()[0]))
    x32 = torch.randn(2, 4, 8)
    x16 = x32.bfloat16()
    ops = {"softmax": lambda x: F.softmax(x, -1), "log_softmax": lambda x: F.log_softmax(x, -1),
           "layer_norm": lambda x: F.layer_norm(x, (8,)), "gelu": F.gelu, "silu": F.silu,
           "pow": lambda x: x.pow(2), "rsqrt": torch.rsqrt, "exp": torch.exp,
           "cross_entropy": lambda x: F.cross_entropy(x.view(-1, 8), torch.zeros(8, dtype=torch.long)),
           "matmul": lambda x: torch.matmul(x, x.transpose(-1, -2))}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for n, fn in ops.items():
            out.append("bf16 autocast %-13s fp32 in -> %s, bf16 in -> %s" % (n, fn(x32).dtype, fn(x16).dtype))
    return out


LLAMA_COLS = ["style", "precision", "h", "a", "s", "b", "V", "tied", "ckpt", "dropout_p",
              "dropout_impl", "gelu", "n_kv", "ffn", "layer_bytes", "layer_float32_bytes",
              "layer_bfloat16_bytes", "layer_bool_bytes", "layer_param_copy_bytes",
              "embed_bytes", "head_bytes", "loss_bytes", "nonlayer_bytes", "norm", "pos",
              "mlp", "rope_bytes"]


def llama_grid():
    base = dict(h=256, a=8, kv=8, s=128, b=2, ffn=688, V=1000)
    shapes = [dict(base)]
    for kv in (1, 2, 4):
        shapes.append(dict(base, kv=kv))
    shapes += [dict(base, h=512, a=8, kv=2, ffn=1376), dict(base, s=256, kv=4),
               dict(base, b=3, kv=2, V=2000), dict(base, a=4, kv=1, ffn=512),
               dict(base, h=384, a=6, kv=3, ffn=1024, s=64)]
    for sh in shapes:
        for prec in ("fp32", "bf16", "bf16_pure"):
            for ckpt in ("none", "reentrant", "nonreentrant"):
                if ckpt != "none" and sh is not shapes[0] and sh is not shapes[4]:
                    continue
                yield sh, prec, ckpt


def bert_grid():
    base = dict(h=256, a=4, s=128, b=2, ffn=1024, V=1000, p=0.1, impl="torch")
    shapes = [dict(base), dict(base, h=512, a=8, ffn=2048), dict(base, s=256),
              dict(base, b=3, V=2000), dict(base, p=0.0), dict(base, impl="native"),
              dict(base, impl="native", a=8, s=64)]
    for sh in shapes:
        for prec in ("fp32", "bf16", "bf16_pure"):
            for ckpt in ("none", "reentrant", "nonreentrant"):
                if ckpt != "none" and sh is not shapes[0]:
                    continue
                yield sh, prec, ckpt


def main():
    torch.set_num_threads(2)
    for line in probe():
        print(line)
    if "--probe" in sys.argv:
        return
    with open(os.path.join(HERE, "torch_cpu_llama.csv"), "w") as f:
        f.write(",".join(LLAMA_COLS) + "\n")
        for sh, prec, ckpt in llama_grid():
            cfg = dict(sh, attn_p=0.0)
            r = measure("llama", cfg, prec, ckpt)
            row = dict(r, style="llama", precision=prec, tied=False, ckpt=ckpt, dropout_p=0.0,
                       dropout_impl="torch", gelu="none", n_kv=sh["kv"], norm="rmsnorm",
                       pos="rotary", mlp="swiglu", **{k: sh[k] for k in ("h", "a", "s", "b", "V", "ffn")})
            f.write(",".join(str(row[c]) for c in LLAMA_COLS) + "\n")
    cols = [c for c in LLAMA_COLS if c != "rope_bytes"]
    with open(os.path.join(HERE, "torch_cpu_bert.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for sh, prec, ckpt in bert_grid():
            r = measure("bert", dict(sh), prec, ckpt)
            row = dict(r, style="bert", precision=prec, tied=True, ckpt=ckpt, dropout_p=sh["p"],
                       dropout_impl=sh["impl"], gelu="erf", n_kv=sh["a"], norm="layernorm",
                       pos="learned", mlp="gelu", **{k: sh[k] for k in ("h", "a", "s", "b", "V", "ffn")})
            f.write(",".join(str(row[c]) for c in cols) + "\n")


if __name__ == "__main__":
    main()
