/** The grammar engine as Node runs it: XGrammar loaded as CommonJS, the vocabulary read from disk (one per tokenizer folder and process). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_TOKENIZER_DIR } from '../../src/format/tokenizer/load-node';
import { GrammarCompiler } from './grammar-compiler';
import { encodedVocabulary, type TokenizerJson } from './vocabulary';
import { loadXGrammarNode } from './xgrammar-node';

const shared = new Map<string, GrammarCompiler>();

/** `tokenizerDir`: the folder holding tokenizer.json (default this project's models/llama-3.1-tokenizer). */
export function nodeGrammars(tokenizerDir: string = DEFAULT_TOKENIZER_DIR): GrammarCompiler {
  let compiler = shared.get(tokenizerDir);
  if (!compiler) {
    compiler = new GrammarCompiler(loadXGrammarNode, async () => encodedVocabulary(JSON.parse(await readFile(join(tokenizerDir, 'tokenizer.json'), 'utf8')) as TokenizerJson));
    shared.set(tokenizerDir, compiler);
  }
  return compiler;
}
