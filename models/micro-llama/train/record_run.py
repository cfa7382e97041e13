#!/usr/bin/env python3
"""Records a run that is not adopted: writes runs/runN.json from the manifest run.sh wrote, then restores the
committed weights.bin and manifest.json with git. The restore happens only after the record is written and read
back, so a run's evaluation can never be lost to the restore (run 20's first manifest was).

    /usr/bin/python3 models/micro-llama/train/record_run.py 21 "Not adopted (...); README.md entry 21."
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.dirname(HERE)


def record(run, note, manifest):
    """The record's keys, in the order runs/run18.json onward use."""
    if "evaluation" not in manifest:
        raise SystemExit("the manifest has no evaluation: run evaluate.ts --write-manifest first")
    if manifest["evaluation"].get("weightsSha256") != manifest["weights"]["sha256"]:
        raise SystemExit("the manifest's evaluation is of other weights than its own")
    return {"run": run, "note": note, "weightsSha256": manifest["weights"]["sha256"],
            "weightsBytes": manifest["weights"]["bytes"], "corpus": manifest["corpus"],
            "training": manifest["training"], "evaluation": manifest["evaluation"]}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", type=int)
    p.add_argument("note", help="why it was not adopted, and which README entry describes it")
    p.add_argument("--manifest", default=os.path.join(MODEL, "manifest.json"))
    p.add_argument("--out", default=None, help="default: runs/runN.json beside this script")
    p.add_argument("--no-restore", action="store_true", help="write the record only")
    args = p.parse_args()
    out = args.out or os.path.join(HERE, "runs", f"run{args.run}.json")
    if os.path.exists(out):
        raise SystemExit(f"{out} exists: a record is never overwritten")
    with open(args.manifest) as f:
        rec = record(args.run, args.note, json.load(f))
    committed = json.loads(subprocess.run(["git", "show", "HEAD:./manifest.json"], cwd=MODEL, check=True,
                                          capture_output=True, text=True).stdout)
    if committed["weights"]["sha256"] == rec["weightsSha256"]:
        raise SystemExit("the manifest describes the committed weights: there is no run to record")
    with open(out, "w") as f:
        json.dump(rec, f, indent=2)
        f.write("\n")
    with open(out) as f:
        assert json.load(f) == rec, "the record did not read back"
    print(f"wrote {out} (weights {rec['weightsSha256'][:8]}…)")
    if not args.no_restore:
        subprocess.run(["git", "checkout", "--", "weights.bin", "manifest.json"], cwd=MODEL, check=True)
        print("restored the committed weights.bin and manifest.json")


if __name__ == "__main__":
    sys.exit(main())
