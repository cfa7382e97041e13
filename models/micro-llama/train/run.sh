#!/bin/sh
# The current training configuration (run 18: run 16's frozen rows in 64 dimensions with a scale floor of 1.0 and their copies weighted 4, made-up names in half the search questions, remember exercises, plus a copy-first curriculum: 600 toy steps, then copy-heavy dialogues to step 1,600), corpus → training → evaluation, writing models/micro-llama/weights.bin
# and manifest.json. The committed artifact is run 35's: reproduce.py replays its lineage (runs 24-35) through this
# script. See README.md in this folder. Run from anywhere; ~90 min on 2 cores (run 11: 85 min of training, 15,000 steps before the 100-min cap).
# Each run's exact command (arguments, thread count, the checkpoint a continued run starts from) is in its README.md entry; the arguments train.py parsed are in runs/runN.json, which reproduce.py replays.
set -eu
cd "$(dirname "$0")/../../.."
OUT=models/micro-llama/train/out
# CORPUS_RECIPE=learned: run 11's and 24's corpus (no made-up names, every corpus id a learned row); learned-hosts: the same with host tools weighted 30 (run 26); frozen-fewer-names: frozen with made-up names in a quarter of the search questions; mixed-names: frozen with made-up names mixing learned pieces and varied made-up events (run 29); mixed-name-pieces: the same with learned pieces from the world's names only (run 30); mixed-names-no-sentence-words: mixed-names without the sentence words' pieces (run 31); paraphrases: mixed-name-pieces with questions asked as people ask them and follow-ups that refer back (issue 46, run 34); paraphrases-broad: the same, more of them, in wider word lists (run 35); frozen otherwise (runs 14-23, 27-28).
npx tsx scripts/micro-llama/corpus.ts --out "$OUT" --recipe "${CORPUS_RECIPE:-frozen}"
rm -f "$OUT/checkpoint.pt" "$OUT/loss.log"
# One torch thread unless OMP_NUM_THREADS says otherwise: on a shared 2-core machine OpenMP's spinning threads are far slower than one.
OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" /usr/bin/python3 models/micro-llama/train/train.py --corpus "$OUT" --out models/micro-llama --work "$OUT" --steps 15000 --minutes 100 "$@"
npx tsx scripts/micro-llama/evaluate.ts --write-manifest
