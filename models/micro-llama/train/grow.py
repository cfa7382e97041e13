"""Widening a trained micro Llama (run 21): a checkpoint's weights placed inside a wider model that computes
nearly the same function, so training continues from what was learned with more room.

Invariants of grow_state (old sizes h0, H0 heads, K0 kv heads, I0 units; new h1, H1, K1, I1; head_dim equal):
- every old weight keeps its value and its place; the old dimensions, heads and units come first;
- the new parts never write into the residual stream at first (o_proj and down_proj: new rows and columns 0),
  and old units never read the new dimensions (their new input columns 0), so the only change to the
  function is the new embedding columns' small random values, seen through the norms and the tied logits;
- new heads and units read with random rows (symmetry broken), and H1 / K1 == H0 / K0, so every old query
  head keeps its key-value head under repeat_interleave;
- RMSNorm weights are scaled by sqrt(h0 / h1): the mean square over h1 dimensions, the new ones near 0, is
  h0 / h1 of the old one.
The frozen rows are untouched: they live in the first --frozen-dims dimensions, and their signs do not
depend on the width (frozen_rows.sign(id, dim)).
"""
import math

import torch

READ = ("q_proj", "k_proj", "v_proj", "gate_proj", "up_proj")
WRITE = ("o_proj", "down_proj")


def sizes(state, head_dim):
    """The widths a state dict was trained with: hidden, heads, kv heads, intermediate, layers."""
    layers = sum(1 for k in state if k.endswith(".q_proj.weight"))
    return {
        "hidden": state["embed.weight"].shape[1],
        "heads": state["layers.0.q_proj.weight"].shape[0] // head_dim,
        "kv_heads": state["layers.0.k_proj.weight"].shape[0] // head_dim,
        "intermediate": state["layers.0.gate_proj.weight"].shape[0],
        "layers": layers,
    }


def grow_state(old, new, head_dim, seed, std=0.02):
    """`old` (a smaller model's state dict) placed into `new` (the wider model's state dict, whose shapes are kept)."""
    a, b = sizes(old, head_dim), sizes(new, head_dim)
    if a["layers"] != b["layers"]:
        raise ValueError(f"grow keeps the layer count: {a['layers']} -> {b['layers']}")
    if any(b[k] < a[k] for k in a) or a["heads"] * b["kv_heads"] != b["heads"] * a["kv_heads"]:
        raise ValueError(f"cannot widen {a} into {b}: every size must grow and heads / kv_heads stay equal")
    gen = torch.Generator().manual_seed(seed)
    norm_scale = math.sqrt(a["hidden"] / b["hidden"])
    out = {}
    for name, target in new.items():
        src = old[name]
        grown = torch.zeros_like(target)
        part = name.split(".")[-2] if "." in name else name  # q_proj, ..., input_layernorm, embed, norm, frozen_scale
        if src.dim() == 1 and part.endswith("norm"):
            grown.fill_(norm_scale)
            grown[: src.shape[0]] = src * norm_scale
        elif name == "embed.weight":
            grown[:, src.shape[1]:] = torch.randn(grown[:, src.shape[1]:].shape, generator=gen) * std
            grown[:, : src.shape[1]] = src
        elif part in READ:
            # New output rows (new heads or units) read everything; old rows read only the old dimensions.
            grown[src.shape[0]:] = torch.randn(grown[src.shape[0]:].shape, generator=gen) * std
            grown[: src.shape[0], : src.shape[1]] = src
        elif part in WRITE:
            grown[: src.shape[0], : src.shape[1]] = src
        elif src.shape == target.shape:
            grown = src.clone()
        else:
            raise ValueError(f"no rule to grow {name} from {tuple(src.shape)} to {tuple(target.shape)}")
        out[name] = grown
    missing = set(old) - set(new)
    if missing:
        raise ValueError(f"the wider model has no place for {sorted(missing)}")
    return out
