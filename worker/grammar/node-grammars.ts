/** The grammar engine as Node runs it: XGrammar loaded as CommonJS, the vocabulary read from disk (one per process). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_TOKENIZER_DIR } from '../../src/format/tokenizer/load-node';
import { GrammarCompiler } from './grammar-compiler';
import { encodedVocabulary, type TokenizerJson } from './vocabulary';
import { loadXGrammarNode } from './xgrammar-node';

let shared: GrammarCompiler | null = null;

export function nodeGrammars(): GrammarCompiler {
  shared ??= new GrammarCompiler(loadXGrammarNode, async () =>
    encodedVocabulary(JSON.parse(await readFile(join(DEFAULT_TOKENIZER_DIR, 'tokenizer.json'), 'utf8')) as TokenizerJson),
  );
  return shared;
}
