"""A one-off experiment (not part of install, tests, CI or run.sh): does train.py's own MicroLlama learn to copy
token ids it never saw, through frozen rows, and how does that depend on the rows' scale? (README.md, entry 15.)

The copy_unseen_rows.py task (`filler Q name filler A name END`, names of 1-3 ids, loss on the copy) through
train.py's MicroLlama and its sampled frozen softmax: ids below 2,000 are learned rows (the filler), names are
drawn from frozen ids [2,000, 102,000) in training and from [102,000, 128,000) when measured, which training
never sees. Accuracy: never-seen frozen tokens predicted exactly (argmax over the frozen rows).

    OMP_NUM_THREADS=2 /usr/bin/python3 models/micro-llama/train/copy_frozen_scale.py --floor 0.1 --seconds 180
    OMP_NUM_THREADS=2 /usr/bin/python3 models/micro-llama/train/copy_frozen_scale.py --floor 1.0 --seconds 120

Measured (Debian torch 1.13, 2 threads, rows in 64 dimensions, 4/2 heads, weight decay 0.1): floor 0.1, 0.010
after 1,000 steps (loss 8.25 -> 6.25); floor 1.0, 0.088 at step 300, 0.543 at 500, 0.663 at 600.
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frozen_rows  # noqa: E402
import train  # noqa: E402

LEARNED, TRAIN_HI = 2000, 102_000
Q, A, END = 1, 2, 3


def batch(size, lo, hi):
    """Sequences with a name from frozen ids [lo, hi); targets -1 except on the copy and END."""
    seqs, tgts = [], []
    for _ in range(size):
        k = int(torch.randint(1, 4, (1,)))
        name = torch.randint(lo, hi, (k,)).tolist()
        fill = [torch.randint(10, LEARNED, (int(torch.randint(2, 12, (1,))),)).tolist() for _ in range(2)]
        seq = fill[0] + [Q] + name + fill[1] + [A] + name + [END]
        tgt = [-1] * len(seq)
        p = len(seq) - k - 1
        for j in range(k + 1):
            tgt[p - 1 + j] = seq[p + j]
        seqs.append(seq)
        tgts.append(tgt)
    n = max(map(len, seqs))
    ids = torch.zeros(size, n, dtype=torch.long)
    tgt = torch.full((size, n), -1, dtype=torch.long)
    for i, (s, t) in enumerate(zip(seqs, tgts)):
        ids[i, : len(s)] = torch.tensor(s)
        tgt[i, : len(t)] = torch.tensor(t)
    return ids, tgt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--floor", type=float, default=1.0)
    ap.add_argument("--dims", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=120)
    args = ap.parse_args()
    torch.manual_seed(0)
    signs = frozen_rows.signs(list(range(LEARNED, frozen_rows.FROZEN_ROWS_BELOW)), 128)
    signs[:, args.dims:] = 0
    cfg = {"hidden_size": 128, "intermediate_size": 384, "num_hidden_layers": 4, "num_attention_heads": 4,
           "num_key_value_heads": 2, "head_dim": 32, "rms_norm_eps": 1e-5, "rope_theta": 500000.0}
    model = train.MicroLlama(cfg, LEARNED, signs, 4096, 256, args.floor)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and not n.startswith("embed")]
    rest = [p for n, p in model.named_parameters() if not (p.dim() == 2 and not n.startswith("embed"))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}], lr=3e-3, betas=(0.9, 0.95))
    t0, step = time.time(), 0
    while time.time() - t0 < args.seconds:
        ids, tgt = batch(64, LEARNED, TRAIN_HI)
        loss, _ = model.loss(ids, tgt)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % 100 == 0:
            with torch.no_grad():
                ids, tgt = batch(200, TRAIN_HI, frozen_rows.FROZEN_ROWS_BELOW)
                sel = tgt >= LEARNED
                pred = (model.hidden(ids)[sel] @ (model.frozen * model.frozen_row_scale()).t()).argmax(-1) + LEARNED
                acc = float((pred == tgt[sel]).float().mean())
            print(f"step {step} {time.time() - t0:.0f} s loss {loss.item():.3f} scale {float(model.frozen_row_scale()):.3f} "
                  f"never-seen frozen tokens {acc:.3f}", flush=True)


if __name__ == "__main__":
    main()
