import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTokenizer } from '../../../scripts/setup/tokenizer';
import { DEFAULT_TOKENIZER_DIR, loadTokenizer } from './load-node';

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'load-tokenizer-'));
  await buildTokenizer(DEFAULT_TOKENIZER_DIR);
});

/** Another tokenizer directory: a copy of the generated one (building one takes seconds; loading is what is tested). */
const copyTokenizer = (dir: string) => cp(DEFAULT_TOKENIZER_DIR, dir, { recursive: true });

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('loadTokenizer', () => {
  it('defaults to <repo>/models/llama-3.1-tokenizer', () => {
    const repo = dirname(dirname(DEFAULT_TOKENIZER_DIR));
    expect(relative(repo, DEFAULT_TOKENIZER_DIR)).toBe(join('models', 'llama-3.1-tokenizer'));
    expect(existsSync(join(repo, 'package.json'))).toBe(true);
  });

  it('loads the default directory once and shares it', () => {
    const first = loadTokenizer();
    expect(loadTokenizer(DEFAULT_TOKENIZER_DIR + '/')).toBe(first);
    expect(first.encode('This is a test sentence.')).toEqual([2028, 374, 264, 1296, 11914, 13]);
  });

  it('loads another directory on its own', async () => {
    const dir = join(scratch, 'tok');
    await copyTokenizer(dir);
    const tokenizer = loadTokenizer(dir);
    expect(tokenizer).not.toBe(loadTokenizer());
    expect(loadTokenizer(dir)).toBe(tokenizer);
    expect(tokenizer.encode('assistant')).toEqual([78191]);
    expect(tokenizer.decode([128008])).toBe('<|eom_id|>');
  });

  it('says how to generate a missing tokenizer, and retries after a failure', async () => {
    const dir = join(scratch, 'missing');
    expect(() => loadTokenizer(dir)).toThrow(/npm run setup/);
    await copyTokenizer(dir);
    expect(loadTokenizer(dir).encode('user')).toEqual([882]);
  });
});
