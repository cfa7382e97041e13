#!/bin/sh
# The current training configuration (run 18: run 16's frozen rows in 64 dimensions with a scale floor of 1.0 and their copies weighted 4, made-up names in half the search questions, remember exercises, plus a copy-first curriculum: 600 toy steps, then copy-heavy dialogues to step 1,600), corpus → training → evaluation, writing models/micro-llama/weights.bin
# and manifest.json. The committed artifact is run 7's: a checkout of commit 99087fa reproduces it. See README.md in
# this folder. Run from anywhere; ~90 min on 2 cores (run 11: 85 min of training, 15,000 steps before the 100-min cap).
# Run 13 ran as `OMP_NUM_THREADS=2 run.sh --threads 2 --minutes 75`, run 14 as `run.sh --minutes 50`, runs 15 and 16 as `OMP_NUM_THREADS=2 run.sh --threads 2`, runs 17 and 18 the same way (README.md, entries 13–18); run 19 continues run 18's final checkpoint (`cp out/checkpoint.pt out/run18-final.pt`, then `OMP_NUM_THREADS=2 run.sh --threads 2 --init-from models/micro-llama/train/out/run18-final.pt --toy-first 0 --copy-first 0 --frozen-weight 1 --lr 1e-3 --warmup 200 --decay-from 0.5`, entry 19); run 20 continues run 19's (`cp out/checkpoint.pt out/run19-final.pt`, then `OMP_NUM_THREADS=2 run.sh --threads 2 --init-from models/micro-llama/train/out/run19-final.pt --toy-first 0 --copy-first 0 --frozen-weight 1 --lr 3e-4 --warmup 100 --decay-from 0 --minutes 90`, entry 20).
set -eu
cd "$(dirname "$0")/../../.."
OUT=models/micro-llama/train/out
npx tsx scripts/micro-llama/corpus.ts --out "$OUT"
rm -f "$OUT/checkpoint.pt" "$OUT/loss.log"
# One torch thread unless OMP_NUM_THREADS says otherwise: on a shared 2-core machine OpenMP's spinning threads are far slower than one.
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" /usr/bin/python3 models/micro-llama/train/train.py --corpus "$OUT" --out models/micro-llama --work "$OUT" --steps 15000 --minutes 100 "$@"
npx tsx scripts/micro-llama/evaluate.ts --write-manifest
