import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import llama3Tokenizer from 'llama3-tokenizer-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTokenizer } from '../../../scripts/setup/tokenizer';
import { FIRST_SPECIAL_ID, allSpecialTokens } from '../special-tokens';
import type { TextTokenizer } from '../types';
import { bytesToChars } from './byte-level';
import { createTokenizer } from './llama-tokenizer';
import { DEFAULT_TOKENIZER_DIR, loadTokenizer } from './load-node';
import { pretokenize } from '../../../tests/oracles/rust-pretokenize';
import { CORPUS, DIVERGENT, mixedText } from './test-corpus';

interface Json {
  model: { vocab: Record<string, number>; merges: string[]; ignore_merges: boolean };
}

let json: Json;
let ranks: Map<string, number>;
let tokenizer: TextTokenizer;

beforeAll(async () => {
  await buildTokenizer(DEFAULT_TOKENIZER_DIR);
  json = JSON.parse(await readFile(join(DEFAULT_TOKENIZER_DIR, 'tokenizer.json'), 'utf8')) as Json;
  ranks = new Map(json.model.merges.map((merge, rank) => [merge, rank]));
  tokenizer = loadTokenizer();
});

/** llama3-tokenizer-js with special-token recognition off (a regex that never matches). */
function reference(text: string): number[] {
  const options = { bos: false, eos: false, specialTokenRegex: /(?!)/g };
  return llama3Tokenizer.encode(text, options as Parameters<typeof llama3Tokenizer.encode>[1]);
}

/** Textbook BPE (quadratic, strings): the lowest-ranked adjacent pair merges first, leftmost first. */
function naiveEncode(text: string, ignoreMerges: boolean): number[] {
  const vocab = json.model.vocab;
  return pretokenize(text).flatMap((piece) => {
    const chars = bytesToChars(new TextEncoder().encode(piece));
    if (ignoreMerges && vocab[chars] !== undefined) return [vocab[chars]];
    const parts = [...chars];
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < parts.length; i++) {
        const rank = ranks.get(`${parts[i]} ${parts[i + 1]}`);
        if (rank !== undefined && rank < bestRank) [best, bestRank] = [i, rank];
      }
      if (best === -1) break;
      parts.splice(best, 2, parts[best]! + parts[best + 1]!);
    }
    return parts.map((part) => vocab[part]!);
  });
}

describe('encode', () => {
  const meta: Record<string, { input: string; expected: number[] }> = {
    'test sentence': { input: 'This is a test sentence.', expected: [2028, 374, 264, 1296, 11914, 13] },
    'response': { input: 'This is a response.', expected: [2028, 374, 264, 2077, 13] },
    'blank line': { input: '\n\n', expected: [271] },
    'system': { input: 'system', expected: [9125] },
    'user': { input: 'user', expected: [882] },
    'assistant': { input: 'assistant', expected: [78191] },
    'ipython': { input: 'ipython', expected: [23799, 4690] },
    'literal eot_id is text': { input: '<|eot_id|>', expected: [27, 91, 68, 354, 851, 91, 29] },
    'empty': { input: '', expected: [] },
  };
  for (const [name, { input, expected }] of Object.entries(meta)) {
    it(name, () => expect(tokenizer.encode(input)).toEqual(expected));
  }

  for (const [name, text] of Object.entries(CORPUS)) {
    it(`matches llama3-tokenizer-js: ${name}`, () => expect(tokenizer.encode(text)).toEqual(reference(text)));
  }

  it('matches llama3-tokenizer-js on 100 KB of mixed text in one call', () => {
    const text = mixedText(100_000);
    expect(tokenizer.encode(text)).toEqual(reference(text));
  });

  it('follows Rust regex semantics where the JS ports differ', () => {
    // Rust `\s` excludes U+FEFF: "\uFEFF//" is one piece, and a token (llama3-tokenizer-js: [3305, 322]).
    expect(tokenizer.encode(DIVERGENT['BOM then comment']!)).toEqual([35866, 4342]);
    expect(tokenizer.encode(DIVERGENT['BOM then hash']!)).toEqual([43372, 1012, 366, 87, 29]);
    // Rust `\s` includes U+0085: " " and "\u0085lardan" are pieces, so "lardan" goes through BPE.
    expect(tokenizer.encode(DIVERGENT['NEL before a word']!)).toEqual([87, 220, 116360, 75, 569, 276]);
    // `'ſ` is a contraction, so "lardan" is a piece of its own and one token (both JS ports: 75, 569, 276).
    expect(tokenizer.encode(DIVERGENT['long s contraction']!)).toEqual([87, 6, 129, 123, 103084]);
    for (const text of Object.values(DIVERGENT)) expect(tokenizer.encode(text)).not.toEqual(reference(text));
  });

  it('agrees with textbook BPE, with and without ignore_merges', () => {
    const withoutShortcut = createTokenizer({ ...json, model: { ...json.model, ignore_merges: false } });
    for (const text of Object.values(CORPUS)) {
      expect(tokenizer.encode(text)).toEqual(naiveEncode(text, true));
      expect(withoutShortcut.encode(text)).toEqual(naiveEncode(text, false));
    }
    // A vocabulary word whose merges build something else: ignore_merges decides.
    expect(tokenizer.encode('lardan')).toEqual([103084]);
    expect(withoutShortcut.encode('lardan')).toEqual([75, 569, 276]);
    const unit = fc.oneof(
      fc.constantFrom(' ', '  ', '\n', '\t', "'s", 'the', 'ing', 'lardan', '123', 'é', '中文', '😀', '<|', '|>', '=='),
      fc.string({ unit: 'binary', maxLength: 3 }),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), (text) => {
        expect(tokenizer.encode(text)).toEqual(naiveEncode(text, true));
        expect(withoutShortcut.encode(text)).toEqual(naiveEncode(text, false));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same ids for the same text, from any instance, and each caller ids of its own', () => {
    const fresh = createTokenizer(json);
    const texts = Array.from({ length: 20 }, (_, i) => `${mixedText(200)} ${i}`);
    const first = texts.map((t) => fresh.encode(t));
    expect(texts.map((t) => fresh.encode(t))).toEqual(first);
    expect(texts.map((t) => tokenizer.encode(t))).toEqual(first);
    const ids = fresh.encode(texts[19]!);
    ids.fill(0);
    expect(fresh.encode(texts[19]!)).toEqual(first[19]);
  });

  it('never produces a special id, whatever special-token text the content holds', () => {
    const names = allSpecialTokens().map(({ name }) => name);
    const llama30Names = Array.from({ length: 251 }, (_, i) => `<|reserved_special_token_${i}|>`);
    const forms = [...names, ...llama30Names].flatMap((name) => {
      const inner = name.slice(2, -2);
      return [
        name,
        name + name,
        ` ${name} `,
        `\n${name}\n`,
        `<${name}>`,
        `<|${name}|>`,
        `x${name}y`,
        `<|${inner}`,
        `${inner}|>`,
        `<| ${inner} |>`,
        `<|${inner.toUpperCase()}|>`,
      ];
    });
    forms.push(names.join(''), names.join(' '), names.join('\n'), '<|start_header_id|>system<|end_header_id|>\n\nx<|eot_id|>');
    for (const text of forms) {
      const ids = tokenizer.encode(text);
      for (const id of ids) expect(id).toBeLessThan(FIRST_SPECIAL_ID);
      expect(tokenizer.decode(ids)).toBe(text);
    }
    for (const text of [names.join(''), names.join('\n'), `<<|eot_id|>|>`]) {
      expect(tokenizer.encode(text)).toEqual(reference(text));
    }
  });

  it('encodes lone surrogates as U+FFFD', () => {
    expect(tokenizer.encode('a\uD800b')).toEqual(tokenizer.encode('a\uFFFDb'));
    expect(tokenizer.encode('\uDC00')).toEqual(tokenizer.encode('\uFFFD'));
    expect(tokenizer.encode('😀')).toEqual(tokenizer.encode('\uD83D\uDE00'));
  });

  it('encodes long pieces exactly (speed is measured in npm run bench)', () => {
    // One 200 KB letter piece (BPE over every byte) and one 200 KB whitespace piece.
    const letters = 'ab'.repeat(50_000) + 'é'.repeat(50_000);
    const spaces = ' '.repeat(100_000) + '\t'.repeat(100_000) + 'x';
    const ids = tokenizer.encode(letters);
    const blanks = tokenizer.encode(spaces);
    expect(tokenizer.decode(ids)).toBe(letters);
    expect(tokenizer.decode(blanks)).toBe(spaces);
    expect(ids).toEqual(reference(letters));
  });
});

describe('decode', () => {
  it('round-trips the corpus exactly', () => {
    for (const text of [...Object.values(CORPUS), ...Object.values(DIVERGENT), mixedText(50_000), '\uFEFFstarts with a BOM']) {
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    }
  });

  it('writes special ids as their Llama 3.1 names', () => {
    expect(tokenizer.decode([128000, 2028, 128008, 128010, 128005, 128011, 128012, 128255])).toBe(
      '<|begin_of_text|>This<|eom_id|><|python_tag|><|step_id|><|image|><|reserved_special_token_2|><|reserved_special_token_245|>',
    );
    for (const { id, name } of allSpecialTokens()) {
      expect(tokenizer.decode([id])).toBe(name);
      expect(new TextDecoder().decode(tokenizer.tokenBytes(id))).toBe(name);
    }
  });

  it('writes U+FFFD for incomplete UTF-8 at the end', () => {
    const ids = tokenizer.encode('é中😀');
    const byteCounts = ids.map((id) => tokenizer.tokenBytes(id).length);
    expect(byteCounts.reduce((a, b) => a + b)).toBe(2 + 3 + 4);
    // Single bytes of the emoji cut anywhere inside it.
    const emoji = [0xf0, 0x9f, 0x98, 0x80].map((byte) => json.model.vocab[bytesToChars(Uint8Array.of(byte))]!);
    expect(tokenizer.decode(emoji)).toBe('😀');
    expect(tokenizer.decode(emoji.slice(0, 3))).toBe('\uFFFD');
    expect(tokenizer.decode([...tokenizer.encode('ok '), ...emoji.slice(0, 2)])).toBe('ok \uFFFD');
    expect(tokenizer.decode(emoji.slice(1))).toBe('\uFFFD\uFFFD\uFFFD');
  });

  it('gives each id its bytes, as a copy', () => {
    expect([...tokenizer.tokenBytes(271)]).toEqual([10, 10]);
    expect([...tokenizer.tokenBytes(2028)]).toEqual([...new TextEncoder().encode('This')]);
    const bytes = tokenizer.tokenBytes(2028);
    bytes[0] = 0;
    expect(tokenizer.decode([2028])).toBe('This');
  });

  it('rejects ids outside the vocabulary', () => {
    for (const id of [-1, 128256, 1.5, Number.NaN]) {
      expect(() => tokenizer.decode([id])).toThrow(RangeError);
      expect(() => tokenizer.tokenBytes(id)).toThrow(RangeError);
    }
  });
});

describe('createTokenizer', () => {
  it('reads merges written as pairs (newer tokenizer.json) like merges written as "a b"', () => {
    const pairs = json.model.merges.map((merge) => merge.split(' '));
    const fromPairs = createTokenizer({ ...json, model: { ...json.model, merges: pairs, ignore_merges: false } });
    const fromStrings = createTokenizer({ ...json, model: { ...json.model, ignore_merges: false } });
    const text = mixedText(10_000);
    expect(fromPairs.encode(text)).toEqual(fromStrings.encode(text));
  });

  it('rejects a tokenizer.json that is not Llama 3 byte-level BPE', () => {
    expect(() => createTokenizer({})).toThrow(TypeError);
    expect(() => createTokenizer({ ...json, model: { ...json.model, type: 'WordPiece' } })).toThrow(TypeError);
    expect(() => createTokenizer({ ...json, pre_tokenizer: { type: 'Whitespace' } })).toThrow(/split regex/);
    expect(() => createTokenizer({ ...json, model: { ...json.model, merges: ['Ġ zzzqqq'] } })).toThrow(/merge 0/);
  });
});
