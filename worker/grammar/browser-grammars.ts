/** The grammar engine as a browser worker runs it: XGrammar from the bundle, the vocabulary fetched from the models folder. */
import { tokenizerUrl } from '../../src/format/tokenizer/fetch-tokenizer';
import { GrammarCompiler } from './grammar-compiler';
import { encodedVocabulary, type TokenizerJson } from './vocabulary';
import { loadXGrammarBrowser } from './xgrammar-browser';

export function browserGrammars(modelsBaseUrl: () => string): GrammarCompiler {
  return new GrammarCompiler(loadXGrammarBrowser, async () => {
    const url = tokenizerUrl(modelsBaseUrl());
    const response = await fetch(url);
    if (!response.ok) throw new Error(`cannot fetch ${url} (HTTP ${response.status})`);
    return encodedVocabulary((await response.json()) as TokenizerJson);
  });
}
