#!/usr/bin/env python3
"""The committed artifact in one command: replays its lineage, runs 24 → 35 (README.md entries 24–35; not 31 or 34), each a
run.sh with the arguments its record holds (runs/runN.json: train.py's parsed arguments as that run used them, so
nothing here is a hand copy), each continuing the export of the one before. ~11 hours of training on 2 cores, plus
~5 minutes of evaluation per run. Bit-exactness is not promised (threads, BLAS, time caps: README.md), so expect
similar accuracy, not the committed sha256. Needs Debian's python3-torch, as run.sh does; --print does not.

    /usr/bin/python3 models/micro-llama/train/reproduce.py           # the last export lands in models/micro-llama
    /usr/bin/python3 models/micro-llama/train/reproduce.py --print   # the commands only, one per run

Invariant, checked before anything runs: each record's init_from.weights_sha256 is the previous record's
weightsSha256, and the last record's is the committed manifest's, so the list below is the committed artifact's
true lineage (a newly adopted run that is not appended fails the check).
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(MODEL))
LINEAGE = [24, 25, 26, 27, 28, 29, 30, 32, 33, 35]
# Where each replayed run's export is kept for the next to continue (git-ignored, as all of train/out).
REPLAY = "models/micro-llama/train/out/lineage"
# run.sh passes these itself (paths of this checkout); resume is never part of a fresh replay.
NOT_REPLAYED = {"corpus", "out", "work", "resume", "init_from"}


def load(records, run):
    with open(os.path.join(records, f"run{run}.json")) as f:
        return json.load(f)


def check_lineage(recs, committed_sha):
    """Raises unless the records chain by weights from the first (trained from scratch) to the committed artifact."""
    first = recs[0]
    if first["training"]["args"].get("init_from"):
        raise SystemExit(f"run {first['run']} is the lineage's first but continues {first['training']['args']['init_from']}")
    for prev, rec in zip(recs, recs[1:]):
        parent = (rec["training"].get("init_from") or {}).get("weights_sha256")
        if parent != prev["weightsSha256"]:
            raise SystemExit(f"run {rec['run']} continued weights {str(parent)[:8]}…, not run {prev['run']}'s {prev['weightsSha256'][:8]}…")
    if recs[-1]["weightsSha256"] != committed_sha:
        raise SystemExit(f"the lineage ends at run {recs[-1]['run']} ({recs[-1]['weightsSha256'][:8]}…), "
                         f"not at the committed artifact ({committed_sha[:8]}…): append the adopted run to LINEAGE")


def flag_value(value):
    """A recorded argument as train.py's command line reads it back; None: leave the flag out."""
    if value is None or value is False:
        return None
    if value is True:
        return ""
    if isinstance(value, list):  # --stop-rule STEP:RATE; [0, 0] is train.py's "no rule"
        return None if value == [0, 0] else f"{value[0]}:{value[1]}"
    return repr(value) if isinstance(value, float) else str(value)


def command(rec, prev_run):
    """(environment, argv) of one run.sh that replays the record, continuing prev_run's replayed export."""
    args = rec["training"]["args"]
    argv = ["models/micro-llama/train/run.sh"]
    for key, value in args.items():
        if key in NOT_REPLAYED:
            continue
        text = flag_value(value)
        if text is not None:
            argv += ["--" + key.replace("_", "-")] + ([text] if text else [])
    if prev_run is not None:
        argv += ["--init-from", f"{REPLAY}/run{prev_run}/manifest.json"]
    env = {"CORPUS_RECIPE": rec["corpus"]["recipe"], "OMP_NUM_THREADS": str(args["threads"])}
    return env, argv


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--print", action="store_true", help="print the commands, run nothing")
    p.add_argument("--records", default=os.path.join(HERE, "runs"), help="where runN.json are (default: runs/)")
    p.add_argument("--manifest", default=os.path.join(MODEL, "manifest.json"), help="the committed artifact's")
    args = p.parse_args()
    recs = [load(args.records, run) for run in LINEAGE]
    with open(args.manifest) as f:
        check_lineage(recs, json.load(f)["weights"]["sha256"])
    prev = None
    for rec in recs:
        env, argv = command(rec, prev)
        line = " ".join(f"{k}={v}" for k, v in env.items()) + " " + shlex.join(argv)
        if args.print:
            print(f"run {rec['run']}: {line}")
        else:
            print(f"reproduce: run {rec['run']}: {line}", flush=True)
            done = subprocess.run(argv, cwd=ROOT, env={**os.environ, **env})
            if done.returncode != 0:
                raise SystemExit(f"run {rec['run']} exited with {done.returncode} (3: its stop rule); the replay stops")
            keep = os.path.join(ROOT, REPLAY, f"run{rec['run']}")
            os.makedirs(keep, exist_ok=True)
            for name in ("weights.bin", "manifest.json"):
                shutil.copy2(os.path.join(MODEL, name), keep)
            shutil.copy2(os.path.join(MODEL, "train", "out", "loss.log"), keep)
        prev = rec["run"]


if __name__ == "__main__":
    sys.exit(main())
