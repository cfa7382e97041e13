"""Frozen embedding rows (artifact format micro-llama-fp16/2): the Python twin of scripts/setup/frozen-rows.ts.

Every ordinary token id (< FROZEN_ROWS_BELOW) without a learned row gets row[d] = scale * sign(id, d),
sign from murmur3's fmix32 of (id, d, FROZEN_ROW_SEED). Must stay bit-identical to the TypeScript
(scripts/setup/frozen-rows.test.ts runs `python3 frozen_rows.py IDS...` and compares). No torch, no numpy
needed for `sign`; `signs` is the vectorized form train.py uses.
"""
import sys

FROZEN_ROW_SEED = 0x5EED1405
FROZEN_ROWS_BELOW = 128000
M = 0xFFFFFFFF


def _fmix32(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M
    h ^= h >> 16
    return h


def sign(token_id, d):
    x = (token_id * 0x9E3779B1 + d * 0x85EBCA77 + FROZEN_ROW_SEED) & M
    return 1 if _fmix32(x) & 1 else -1


def signs(ids, dim):
    """float32 array (len(ids), dim) of ±1, equal to sign() element by element."""
    import numpy as np
    i = np.asarray(ids, dtype=np.uint64)[:, None]
    d = np.arange(dim, dtype=np.uint64)[None, :]
    x = (i * 0x9E3779B1 + d * 0x85EBCA77 + FROZEN_ROW_SEED) & M
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & M
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & M
    x ^= x >> 16
    return np.where(x & 1, 1.0, -1.0).astype(np.float32)


def placed(ids, hidden, dims, offset=0):
    """float32 array (len(ids), hidden): signs(ids, dims) in columns [offset, offset + dims), 0 elsewhere; the
    unscaled rows of fillFrozenRows (scripts/setup/frozen-rows.ts), used by train.py and artifact.py alike."""
    import numpy as np
    if offset < 0 or dims < 1 or offset + dims > hidden:
        raise ValueError(f"frozen rows: dimensions [{offset}, {offset + dims}) do not fit a hidden size of {hidden}")
    out = np.zeros((len(ids), hidden), dtype=np.float32)
    out[:, offset:offset + dims] = signs(ids, dims)
    return out


if __name__ == "__main__":
    # `frozen_rows.py DIM ID...`: one line per id, its signs as + and -.
    dim = int(sys.argv[1])
    for a in sys.argv[2:]:
        print("".join("+" if sign(int(a), d) > 0 else "-" for d in range(dim)))
