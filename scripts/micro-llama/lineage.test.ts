import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// models/micro-llama/train/reproduce.py replays the committed artifact's lineage from runs/runN.json. These
// tests read the records themselves, not through the script, and hold its commands to them.
const TRAIN = 'models/micro-llama/train';
const SCRIPT = join(TRAIN, 'reproduce.py');
const RECORDS = join(TRAIN, 'runs');
/** Arguments run.sh or the replay sets itself, never copied from a record. */
const NOT_REPLAYED = ['corpus', 'out', 'work', 'resume', 'init_from'];

interface RunRecord {
  run: number;
  weightsSha256: string;
  corpus: { recipe: string };
  training: { args: Record<string, unknown>; init_from?: { weights_sha256: string } };
}

const record = (run: number, dir = RECORDS): RunRecord => JSON.parse(readFileSync(join(dir, `run${run}.json`), 'utf8'));
const committedSha = (): string => JSON.parse(readFileSync('models/micro-llama/manifest.json', 'utf8')).weights.sha256;
/** Every flag train.py defines. */
const trainFlags = new Set([...readFileSync(join(TRAIN, 'train.py'), 'utf8').matchAll(/add_argument\("(--[a-z-]+)"/g)].map((m) => m[1]));

const print = (extra: string[] = []) => spawnSync('python3', [SCRIPT, '--print', ...extra], { encoding: 'utf8' });

/** The printed commands: "run N: ENV=… run.sh --flag value …", one per run of the lineage. */
function commands() {
  const out = print();
  expect(out.status, out.stderr).toBe(0);
  return out.stdout.trim().split('\n').map((line) => {
    const m = /^run (\d+): (.*)$/.exec(line);
    expect(m, line).not.toBeNull();
    const words = m![2]!.split(' ');
    const env = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split('=') as [string, string]));
    const argv = words.filter((w) => !/^[A-Z_]+=/.test(w));
    expect(argv[0]).toBe('models/micro-llama/train/run.sh');
    const flags = new Map<string, string>();
    for (let i = 1; i < argv.length; i += 2) {
      expect(argv[i]).toMatch(/^--/);
      flags.set(argv[i]!, argv[i + 1]!);
    }
    return { run: Number(m![1]), env, flags };
  });
}

describe('the committed artifact reproduces in one command (reproduce.py)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'lineage-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  // One --print serves both tests that read the commands.
  let cmds: ReturnType<typeof commands>;
  beforeAll(() => {
    cmds = commands();
  });

  it('replays runs whose records chain by weights from a run trained from scratch to the committed artifact', () => {
    const chain = cmds.map((c) => record(c.run));
    expect(chain.length).toBeGreaterThan(1);
    expect(chain[0]!.training.args.init_from).toBeNull();
    for (let k = 1; k < chain.length; k++) expect(chain[k]!.training.init_from?.weights_sha256, `run ${chain[k]!.run}`).toBe(chain[k - 1]!.weightsSha256);
    expect(chain.at(-1)!.weightsSha256).toBe(committedSha());
  });

  it("each command passes exactly its record's arguments, each a flag train.py defines, with its recipe and threads", () => {
    cmds.forEach(({ run, env, flags }, k) => {
      const rec = record(run);
      expect(env.CORPUS_RECIPE).toBe(rec.corpus.recipe);
      expect(env.OMP_NUM_THREADS).toBe(String(rec.training.args.threads));
      for (const flag of flags.keys()) expect(trainFlags.has(flag), flag).toBe(true);
      // Each run continues the previous one's replayed export, never a path of the machine that trained it.
      expect(flags.get('--init-from')).toBe(k === 0 ? undefined : `models/micro-llama/train/out/lineage/run${cmds[k - 1]!.run}/manifest.json`);
      const replayed = new Set(['--init-from']);
      for (const [key, value] of Object.entries(rec.training.args)) {
        if (NOT_REPLAYED.includes(key)) continue;
        const flag = `--${key.replaceAll('_', '-')}`;
        const got = flags.get(flag);
        replayed.add(flag);
        if (value === null || value === false || (Array.isArray(value) && value[0] === 0 && value[1] === 0)) expect(got, `run ${run} ${key}`).toBeUndefined();
        else if (Array.isArray(value)) expect(got, `run ${run} ${key}`).toBe(`${value[0]}:${value[1]}`);
        else expect(Number(got), `run ${run} ${key}`).toBe(value);
      }
      expect([...flags.keys()].filter((f) => !replayed.has(f)), `run ${run}: flags no record holds`).toEqual([]);
    });
  });

  it('refuses a broken chain and a lineage that stops short of the committed artifact, naming the run', () => {
    const dir = join(tmp, 'runs');
    cpSync(RECORDS, dir, { recursive: true });
    const broken = record(28, dir);
    broken.training.init_from!.weights_sha256 = '0'.repeat(64);
    writeFileSync(join(dir, 'run28.json'), JSON.stringify(broken));
    const out = print(['--records', dir]);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain('run 28 continued weights 00000000…, not run 27');
    expect(out.stdout).toBe('');

    const manifest = join(tmp, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ weights: { sha256: 'f'.repeat(64) } }));
    const short = print(['--manifest', manifest]);
    expect(short.status).not.toBe(0);
    expect(short.stderr).toMatch(/the lineage ends at run \d+ .*append the adopted run to LINEAGE/);
  });

  it('imports no torch, so --print runs on a machine without it (CI installs none)', () => {
    expect(readFileSync(SCRIPT, 'utf8')).not.toMatch(/^\s*(import|from)\s+torch/m);
  });
});
