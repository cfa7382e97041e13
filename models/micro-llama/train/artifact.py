"""Reading an exported artifact (manifest.json + weights.bin) back as a checkpoint (run 22 on), so that training can
continue from any run's weights, not only from a checkpoint.pt that lives on one machine: train/out/ is git-ignored
and a new machine starts without it, while an artifact's two files can be kept anywhere.

Invariants of as_checkpoint:
- the weights.bin read is the one the manifest describes (size and sha256), and every embedding row keeps its token:
  rows are placed by token id, not by position;
- a corpus whose learned ids differ a little from the artifact's (run 23: a changed mixture draws a few rare ids in or
  out) keeps the function on every id: an id that becomes learned starts from the frozen (or zero) row it had, and an
  id that stops being learned gets its frozen row back; more than MAX_CHANGED_IDS of the corpus's ids changed means a
  different corpus, and is refused;
- fp16 -> fp32 is exact, so exporting the state again unchanged writes the same bytes (checked by train.py
  --steps 0, which only exports);
- a format /3 artifact's frozen rows start at its frozen_offset, which must be --frozen-offset (a /1 artifact has none);
- the frozen-row scale is exported as fp16 (1.0 for a scale at its floor of 1); it comes back as floor + the softplus of
  a raw parameter, so a scale at or under its floor returns as floor + 1e-4, well inside fp16's rounding at 1.
"""
import hashlib
import json
import math
import os

import numpy as np
import torch

import frozen_rows

# The exported names (Hugging Face's) of train.py's per-layer parameters, in weights.bin's order (train.py's export
# writes them from this table, and this module reads them back with it).
LAYER_NAMES = {
    "input_layernorm.weight": "input_layernorm.weight",
    "self_attn.q_proj.weight": "q_proj.weight",
    "self_attn.k_proj.weight": "k_proj.weight",
    "self_attn.v_proj.weight": "v_proj.weight",
    "self_attn.o_proj.weight": "o_proj.weight",
    "post_attention_layernorm.weight": "post_attention_layernorm.weight",
    "mlp.gate_proj.weight": "gate_proj.weight",
    "mlp.up_proj.weight": "up_proj.weight",
    "mlp.down_proj.weight": "down_proj.weight",
}
# The share of the corpus's learned ids that may be new to the artifact (or dropped from it) before it is refused.
MAX_CHANGED_IDS = 0.05
# softplus(raw) for a frozen scale exported at (or, after fp16 rounding, under) its floor.
MIN_SCALE_ABOVE_FLOOR = 1e-4


def read_tensors(manifest_path):
    """The manifest and its tensors by name, after checking weights.bin against the manifest."""
    with open(manifest_path) as f:
        manifest = json.load(f)
    with open(os.path.join(os.path.dirname(manifest_path), manifest["weights"]["file"]), "rb") as f:
        blob = f.read()
    if len(blob) != manifest["weights"]["bytes"] or hashlib.sha256(blob).hexdigest() != manifest["weights"]["sha256"]:
        raise SystemExit(f"{manifest_path}: weights.bin is not the file the manifest describes")
    tensors = {}
    for t in manifest["tensors"]:
        dtype = "<i4" if t["dtype"] == "int32" else "<f2"
        tensors[t["name"]] = np.frombuffer(blob, dtype=dtype, count=int(np.prod(t["shape"])), offset=t["offset"]).reshape(t["shape"])
    return manifest, tensors


def as_checkpoint(manifest_path, used_ids, frozen_floor, frozen_dims, frozen_offset=0):
    """What train.py's --init-from reads from a checkpoint.pt (model, step, elapsed, curve, tokens_seen), from an artifact."""
    manifest, tensors = read_tensors(manifest_path)
    if "model.embed_tokens.frozen_dims" in tensors and int(tensors["model.embed_tokens.frozen_dims"][0]) != frozen_dims:
        raise SystemExit(f"{manifest_path}: its frozen rows span {int(tensors['model.embed_tokens.frozen_dims'][0])} dimensions, not --frozen-dims {frozen_dims}")
    if "model.embed_tokens.frozen_scale" in tensors:
        theirs = int(tensors["model.embed_tokens.frozen_offset"][0]) if "model.embed_tokens.frozen_offset" in tensors else 0
        if theirs != frozen_offset:
            raise SystemExit(f"{manifest_path}: its frozen rows start at dimension {theirs}, not --frozen-offset {frozen_offset}")
    f32 = lambda name: torch.from_numpy(tensors[name].astype(np.float32))  # noqa: E731
    rows, remapped = rows_for(tensors, list(used_ids), frozen_dims, manifest_path, frozen_offset)
    state = {"embed.weight": rows, "norm.weight": f32("model.norm.weight")}
    for l in range(manifest["config"]["num_hidden_layers"]):
        for theirs, ours in LAYER_NAMES.items():
            state[f"layers.{l}.{ours}"] = f32(f"model.layers.{l}.{theirs}")
    if "model.embed_tokens.frozen_scale" in tensors:
        above = max(float(tensors["model.embed_tokens.frozen_scale"][0]) - frozen_floor, MIN_SCALE_ABOVE_FLOOR)
        state["frozen_scale"] = torch.tensor(math.log(math.expm1(above)))
    training = manifest.get("training", {})
    ck = {"model": state, "step": training.get("steps", 0), "elapsed": 60.0 * training.get("minutes", 0),
          "curve": training.get("loss_curve", []), "tokens_seen": training.get("tokens_seen", 0),
          "weights_sha256": manifest["weights"]["sha256"]}
    if remapped:
        ck["remapped"] = remapped
    return ck


def rows_for(tensors, used_ids, frozen_dims, manifest_path, frozen_offset=0):
    """The learned rows for `used_ids` (fp32, by token id) and, when they differ from the artifact's, what changed."""
    theirs = tensors["used_token_ids"].tolist()
    rows = torch.from_numpy(tensors["model.embed_tokens.rows"].astype(np.float32))
    if theirs == used_ids:
        return rows, None
    at = {t: i for i, t in enumerate(theirs)}
    ours = set(used_ids)
    new = [t for t in used_ids if t not in at]
    dropped = [t for t in theirs if t not in ours]
    if len(new) + len(dropped) > MAX_CHANGED_IDS * len(used_ids):
        raise SystemExit(f"{manifest_path}: {len(new)} of this corpus's learned ids are new to it and {len(dropped)} are gone "
                         f"(more than {MAX_CHANGED_IDS:.0%}): not the corpus it was trained on, or one changed too much to continue")
    out = torch.zeros(len(used_ids), rows.shape[1])
    scale = float(tensors["model.embed_tokens.frozen_scale"][0]) if "model.embed_tokens.frozen_scale" in tensors else 0.0
    for i, t in enumerate(used_ids):
        if t in at:
            out[i] = rows[at[t]]
        elif scale and t < frozen_rows.FROZEN_ROWS_BELOW:
            # The row this id had as a frozen row (fp16-rounded scale, as the engine computes it); a special id, or any id of
            # an artifact without frozen rows (format /1), had a zero row.
            out[i] = torch.from_numpy(frozen_rows.placed([t], out.shape[1], frozen_dims, frozen_offset)[0]) * scale
    return out, {"kept": len(used_ids) - len(new), "new": new, "dropped": dropped}
