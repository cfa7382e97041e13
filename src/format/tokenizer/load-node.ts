/**
 * Loads the generated Llama 3.1 tokenizer from disk (Node only; the page fetches tokenizer.json and
 * calls `createTokenizer` itself). The directory is written by `buildTokenizer`
 * (scripts/setup/tokenizer.ts) during `npm install`; tests may call that first (a no-op when current).
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TextTokenizer } from '../types';
import { createTokenizer } from './llama-tokenizer';

/** `<repo>/models/llama-3.1-tokenizer`: where setup writes tokenizer.json and tokenizer_config.json. */
export const DEFAULT_TOKENIZER_DIR = fileURLToPath(new URL('../../../models/llama-3.1-tokenizer', import.meta.url));

const loaded = new Map<string, TextTokenizer>();

/**
 * The tokenizer in `dir/tokenizer.json`, loaded synchronously (~0.6 s: ~9 MB of JSON): one per process
 * and directory (calls with the same directory share it); a failed load is not remembered. Throws,
 * naming `npm run setup`, when the file is missing.
 */
export function loadTokenizer(dir: string = DEFAULT_TOKENIZER_DIR): TextTokenizer {
  const file = resolve(dir, 'tokenizer.json');
  let tokenizer = loaded.get(file);
  if (tokenizer === undefined) {
    tokenizer = readTokenizer(file);
    loaded.set(file, tokenizer);
  }
  return tokenizer;
}

function readTokenizer(file: string): TextTokenizer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new Error(`cannot read ${file}: run \`npm run setup\` to generate it`, { cause });
  }
  return createTokenizer(JSON.parse(text) as object);
}
