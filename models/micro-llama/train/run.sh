#!/bin/sh
# Reproduces the committed micro-llama artifact (models/micro-llama/weights.bin and manifest.json):
# corpus → training → evaluation. See README.md in this folder. Run from anywhere; ~115 min on 2 cores (100 of them training).
set -eu
cd "$(dirname "$0")/../../.."
OUT=models/micro-llama/train/out
npx tsx scripts/micro-llama/corpus.ts --out "$OUT"
rm -f "$OUT/checkpoint.pt" "$OUT/loss.log"
# One torch thread: on a shared 2-core machine OpenMP's spinning threads are far slower than one.
OMP_NUM_THREADS=1 /usr/bin/python3 models/micro-llama/train/train.py --corpus "$OUT" --out models/micro-llama --work "$OUT" --steps 15000 --minutes 100 "$@"
npx tsx scripts/micro-llama/evaluate.ts --write-manifest
