#!/usr/bin/python3
"""Trains the micro Llama on the corpus written by scripts/micro-llama/corpus.ts and exports the
committed artifact (weights.bin: fp16 tensors; manifest.json: config, tensor table, settings, loss curve).

Runs on Debian's python3-torch (CPU); see README.md next to this file for the one command that
reproduces the committed artifact. Architecture: HF LlamaForCausalLM semantics (RMSNorm, RoPE with HF's
rotate_half convention, GQA, SwiGLU, tied embeddings), so the exported tensors drop into the project's
ONNX builder unchanged.

Only the token ids that occur in the corpus get embedding rows; every other id of the 128,256-token
vocabulary is a zero row, whose logit is exactly 0. The full-vocabulary cross-entropy is therefore
exact and cheap: logsumexp(used logits, log(number of zero rows)).
"""
import argparse
import hashlib
import json
import math
import os
import random
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

VOCAB_SIZE = 128256


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default="models/micro-llama/train/out", help="directory holding train.jsonl and corpus.json")
    p.add_argument("--out", default="models/micro-llama", help="where weights.bin and manifest.json are written")
    p.add_argument("--work", default="models/micro-llama/train/out", help="checkpoints and the loss log")
    p.add_argument("--steps", type=int, default=6000, help="optimizer steps (the learning-rate schedule spans them)")
    p.add_argument("--minutes", type=float, default=55.0,
                   help="time cap (wall clock, excluding loading and export); the schedule ends at whichever of steps and minutes comes first")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads; 1 is fastest on a shared machine (OpenMP threads spin-wait: on 2 busy cores, 2 threads ran 50x slower)")
    p.add_argument("--batch-tokens", type=int, default=3072, help="padded tokens per step")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--min-lr-ratio", type=float, default=0.05)
    p.add_argument("--decay-from", type=float, default=0.6, help="fraction of the run after which the learning rate decays (cosine)")
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--intermediate", type=int, default=384)
    p.add_argument("--rope-theta", type=float, default=500000.0)
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--checkpoint-minutes", type=float, default=5.0)
    p.add_argument("--resume", action="store_true", help="continue from WORK/checkpoint.pt")
    return p.parse_args()


# ----------------------------------------------------------------------------------------------- model

class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Block(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, hd = cfg["hidden_size"], cfg["head_dim"]
        self.heads, self.kv_heads, self.head_dim = cfg["num_attention_heads"], cfg["num_key_value_heads"], hd
        self.input_layernorm = RMSNorm(h, cfg["rms_norm_eps"])
        self.q_proj = torch.nn.Linear(h, self.heads * hd, bias=False)
        self.k_proj = torch.nn.Linear(h, self.kv_heads * hd, bias=False)
        self.v_proj = torch.nn.Linear(h, self.kv_heads * hd, bias=False)
        self.o_proj = torch.nn.Linear(self.heads * hd, h, bias=False)
        self.post_attention_layernorm = RMSNorm(h, cfg["rms_norm_eps"])
        self.gate_proj = torch.nn.Linear(h, cfg["intermediate_size"], bias=False)
        self.up_proj = torch.nn.Linear(h, cfg["intermediate_size"], bias=False)
        self.down_proj = torch.nn.Linear(cfg["intermediate_size"], h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, n, _ = x.shape
        hn = self.input_layernorm(x)
        q = self.q_proj(hn).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hn).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hn).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(self.head_dim)) + mask
        ctx = torch.softmax(scores, dim=-1) @ v
        x = x + self.o_proj(ctx.transpose(1, 2).reshape(b, n, self.heads * self.head_dim))
        hn = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(hn)) * self.up_proj(hn))


class MicroLlama(torch.nn.Module):
    def __init__(self, cfg, used_rows):
        super().__init__()
        self.cfg = cfg
        self.embed = torch.nn.Embedding(used_rows, cfg["hidden_size"])
        self.layers = torch.nn.ModuleList([Block(cfg) for _ in range(cfg["num_hidden_layers"])])
        self.norm = RMSNorm(cfg["hidden_size"], cfg["rms_norm_eps"])
        hd = cfg["head_dim"]
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
        self.register_buffer("inv_freq", inv.float(), persistent=False)
        # log(number of zero rows): their logits are exactly 0.
        self.zero_rows_lse = math.log(VOCAB_SIZE - used_rows)
        self.reset_parameters()

    def reset_parameters(self):
        std = 0.02
        resid = std / math.sqrt(2 * self.cfg["num_hidden_layers"])
        torch.nn.init.normal_(self.embed.weight, 0.0, std)
        for layer in self.layers:
            for lin in (layer.q_proj, layer.k_proj, layer.v_proj, layer.gate_proj, layer.up_proj):
                torch.nn.init.normal_(lin.weight, 0.0, std)
            for lin in (layer.o_proj, layer.down_proj):
                torch.nn.init.normal_(lin.weight, 0.0, resid)

    def hidden(self, ids):
        b, n = ids.shape
        pos = torch.arange(n, dtype=torch.float32)
        freqs = pos[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        mask = torch.full((n, n), -1e9).triu(1)[None, None]
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.norm(x)

    def loss(self, ids, targets):
        """Mean full-vocabulary cross-entropy over positions whose target is not -1."""
        h = self.hidden(ids)
        sel = targets >= 0
        logits = h[sel] @ self.embed.weight.t()
        lse = torch.logaddexp(torch.logsumexp(logits, dim=-1), torch.tensor(self.zero_rows_lse))
        picked = logits.gather(1, targets[sel][:, None])[:, 0]
        return (lse - picked).mean(), int(sel.sum())


# ----------------------------------------------------------------------------------------------- data

def load_corpus(path):
    examples = []
    with open(os.path.join(path, "train.jsonl")) as f:
        for line in f:
            if line.strip():
                examples.append(json.loads(line))
    with open(os.path.join(path, "corpus.json")) as f:
        meta = json.load(f)
    return examples, meta


def to_arrays(examples, compact):
    """Per dialogue: compact input ids and targets (-1 where there is no loss)."""
    out = []
    for ex in examples:
        ids = np.array([compact[i] for i in ex["ids"]], dtype=np.int64)
        tgt = np.full(len(ids), -1, dtype=np.int64)
        for start, end in ex["loss"]:
            # position t predicts ids[t + 1]
            tgt[start - 1:end - 1] = ids[start:end]
        out.append((ids, tgt))
    return out


def batches(data, batch_tokens, rng):
    """One epoch of length-bucketed batches: dialogues of similar length together, right-padded."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][0]) + rng.random() * 24))
    groups, cur, cur_max = [], [], 0
    for i in order:
        n = len(data[i][0])
        m = max(cur_max, n)
        if cur and m * (len(cur) + 1) > batch_tokens:
            groups.append(cur)
            cur, m = [], n
        cur.append(i)
        cur_max = m
    if cur:
        groups.append(cur)
    rng.shuffle(groups)
    for g in groups:
        n = max(len(data[i][0]) for i in g)
        ids = np.zeros((len(g), n), dtype=np.int64)
        tgt = np.full((len(g), n), -1, dtype=np.int64)
        for r, i in enumerate(g):
            a, t = data[i]
            ids[r, : len(a)] = a
            tgt[r, : len(t)] = t
        yield torch.from_numpy(ids), torch.from_numpy(tgt), int(sum(len(data[i][0]) for i in g))


# ----------------------------------------------------------------------------------------------- export

def export(model, used_ids, cfg, out_dir, settings):
    """weights.bin: the tensors as little-endian fp16 (ids as int32), 64-byte aligned; manifest.json describes them."""
    tensors = [("used_token_ids", np.asarray(used_ids, dtype="<i4"))]
    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    tensors.append(("model.embed_tokens.rows", sd["embed.weight"].astype("<f2")))
    for l in range(cfg["num_hidden_layers"]):
        p = f"layers.{l}."
        hf = f"model.layers.{l}."
        for ours, theirs in [
            ("input_layernorm.weight", "input_layernorm.weight"),
            ("q_proj.weight", "self_attn.q_proj.weight"),
            ("k_proj.weight", "self_attn.k_proj.weight"),
            ("v_proj.weight", "self_attn.v_proj.weight"),
            ("o_proj.weight", "self_attn.o_proj.weight"),
            ("post_attention_layernorm.weight", "post_attention_layernorm.weight"),
            ("gate_proj.weight", "mlp.gate_proj.weight"),
            ("up_proj.weight", "mlp.up_proj.weight"),
            ("down_proj.weight", "mlp.down_proj.weight"),
        ]:
            tensors.append((hf + theirs, sd[p + ours].astype("<f2")))
    tensors.append(("model.norm.weight", sd["norm.weight"].astype("<f2")))

    blob = bytearray()
    table = []
    for name, arr in tensors:
        while len(blob) % 64:
            blob.append(0)
        data = arr.tobytes()
        table.append({
            "name": name,
            "dtype": "int32" if arr.dtype.kind == "i" else "float16",
            "shape": list(arr.shape),
            "offset": len(blob),
            "bytes": len(data),
        })
        blob += data
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, "weights.bin.tmp")
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, os.path.join(out_dir, "weights.bin"))
    manifest_path = os.path.join(out_dir, "manifest.json")
    manifest = {
        "format": "micro-llama-fp16/1",
        "description": "A micro Llama 3.1 trained on this project's synthetic tool transcripts; scripts/setup/micro-model.ts expands it into models/micro-llama/onnx/model.onnx.",
        "config": cfg,
        "weights": {"file": "weights.bin", "bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()},
        "tensors": table,
        **settings,
    }
    # Keep an evaluation written earlier for these exact weights; drop it for new ones.
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            old = json.load(f)
        if old.get("weights", {}).get("sha256") == manifest["weights"]["sha256"] and "evaluation" in old:
            manifest["evaluation"] = old["evaluation"]
    tmp = manifest_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    os.replace(tmp, manifest_path)
    return len(blob)


# ----------------------------------------------------------------------------------------------- main

def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    t_load = time.time()
    examples, corpus_meta = load_corpus(args.corpus)
    used_ids = sorted({i for ex in examples for i in ex["ids"]})
    compact = {t: i for i, t in enumerate(used_ids)}
    data = to_arrays(examples, compact)
    del examples
    cfg = {
        "vocab_size": VOCAB_SIZE,
        "hidden_size": args.hidden,
        "intermediate_size": args.intermediate,
        "num_hidden_layers": args.layers,
        "num_attention_heads": args.heads,
        "num_key_value_heads": args.kv_heads,
        "head_dim": args.hidden // args.heads,
        "rms_norm_eps": 1e-5,
        "rope_theta": args.rope_theta,
        "rope_scaling": None,
        "tie_word_embeddings": True,
    }
    model = MicroLlama(cfg, len(used_ids))
    n_layer_params = sum(p.numel() for n, p in model.named_parameters() if not n.startswith("embed"))
    print(f"corpus: {len(data)} dialogues, {sum(len(a) for a, _ in data)} tokens, {len(used_ids)} used ids; "
          f"model: {n_layer_params} parameters outside the embedding, {model.embed.weight.numel()} in used rows; "
          f"loaded in {time.time() - t_load:.1f} s; torch {torch.__version__}, {torch.get_num_threads()} threads", flush=True)

    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and not n.startswith("embed")]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() == 2 and not n.startswith("embed"))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)

    os.makedirs(args.work, exist_ok=True)
    ckpt_path = os.path.join(args.work, "checkpoint.pt")
    step, elapsed_before, curve, epoch, tokens_seen = 0, 0.0, [], 0, 0
    if args.resume and os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        step, elapsed_before, curve, epoch, tokens_seen = ck["step"], ck["elapsed"], ck["curve"], ck["epoch"], ck["tokens_seen"]
        rng.setstate(ck["rng"])
        torch.set_rng_state(ck["torch_rng"])
        print(f"resumed at step {step} ({elapsed_before / 60:.1f} min)", flush=True)

    budget = args.minutes * 60.0
    t0 = time.time() - elapsed_before
    last_ckpt = time.time()
    window_loss, window_n, window_tok, window_t = 0.0, 0, 0, time.time()
    done = False
    log = open(os.path.join(args.work, "loss.log"), "a")
    while not done:
        epoch += 1
        for ids, tgt, ntok in batches(data, args.batch_tokens, rng):
            elapsed = time.time() - t0
            if elapsed >= budget or step >= args.steps:
                done = True
                break
            frac = max(elapsed / budget, step / args.steps)
            if step < args.warmup:
                lr = args.lr * (step + 1) / args.warmup
            else:
                # Warmup, then constant, then a cosine decay over the last part (warmup-stable-decay).
                d = max(0.0, (frac - args.decay_from) / (1 - args.decay_from))
                lr = args.lr * (args.min_lr_ratio + (1 - args.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * d)))
            for g in opt.param_groups:
                g["lr"] = lr
            loss, n = model.loss(ids, tgt)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            tokens_seen += ntok
            window_loss += float(loss) * n
            window_n += n
            window_tok += ntok
            if step % args.log_every == 0:
                now = time.time()
                mean = window_loss / max(window_n, 1)
                line = (f"step {step:5d}  epoch {epoch}  {(now - t0) / 60:5.1f} min  loss {mean:.4f}  lr {lr:.2e}  "
                        f"{window_tok / (now - window_t):6.0f} tok/s")
                print(line, flush=True)
                log.write(line + "\n")
                log.flush()
                curve.append([step, round((now - t0) / 60, 2), round(mean, 4)])
                window_loss, window_n, window_tok, window_t = 0.0, 0, 0, now
            if time.time() - last_ckpt > args.checkpoint_minutes * 60:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "elapsed": time.time() - t0,
                            "curve": curve, "epoch": epoch, "tokens_seen": tokens_seen, "rng": rng.getstate(),
                            "torch_rng": torch.get_rng_state()}, ckpt_path)
                last_ckpt = time.time()
    train_seconds = time.time() - t0
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "elapsed": train_seconds, "curve": curve,
                "epoch": epoch, "tokens_seen": tokens_seen, "rng": rng.getstate(), "torch_rng": torch.get_rng_state()}, ckpt_path)

    settings = {
        "corpus": {k: v for k, v in corpus_meta.items()},
        "training": {
            "command": "models/micro-llama/train/run.sh",
            "args": vars(args),
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "steps": step,
            "epochs_started": epoch,
            "tokens_seen": tokens_seen,
            "minutes": round(train_seconds / 60, 1),
            "parameters_outside_embedding": n_layer_params,
            "used_embedding_rows": len(used_ids),
            "loss_curve": curve,
            "final_loss": curve[-1][2] if curve else None,
        },
    }
    size = export(model, used_ids, cfg, args.out, settings)
    print(f"trained {step} steps in {train_seconds / 60:.1f} min; exported {size} bytes to {args.out}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
