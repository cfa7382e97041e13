/**
 * Compiled grammars for one vocabulary: XGrammar's TokenizerInfo is built once (on the first
 * constrained request), compiled grammars are cached here by their text (least recently used first
 * out), never in XGrammar; a grammar that failed to compile is not cached, and compiling it again fails again.
 * A grammar that does not compile is an EngineError `invalid_constraint` naming XGrammar's reason.
 */
import type { JsonSchema } from '../../src/engine/contract';
import { EngineError } from '../../src/engine/errors';
import { EOM, EOT, END_OF_TEXT, VOCAB_SIZE } from '../../src/format/special-tokens';
import { describeVocabulary, type Vocabulary, type VocabularyLoader } from './vocabulary';
import { bindXGrammarOutput, withXGrammarReason, type CompiledGrammar, type XGrammar, type XGrammarCompiler, type XGrammarLoader } from './xgrammar';

const CACHED = 64;
/** Python's separators: the spacing Llama 3.1 was tuned on. */
const SEPARATORS: [string, string] = [', ', ': '];

/**
 * `strict`: properties and items a schema does not declare are not generated (XGrammar's strict mode:
 * a valid subset); off, they may be.
 */
export type GrammarSource = { kind: 'json_schema'; schema: JsonSchema; strict: boolean } | { kind: 'ebnf'; grammar: string };

interface Ready {
  xg: XGrammar;
  compiler: XGrammarCompiler;
  vocabulary: Vocabulary;
}

export class GrammarCompiler {
  private ready: Promise<Ready> | null = null;
  private readonly cache = new Map<string, Promise<CompiledGrammar>>();

  constructor(
    private readonly loadXGrammar: XGrammarLoader,
    private readonly loadVocabulary: VocabularyLoader,
  ) {}

  /** XGrammar and the vocabulary, loaded once (a failed load is not remembered). */
  start(): Promise<Ready> {
    this.ready ??= (async () => {
      const [xg, encoded] = await Promise.all([this.loadXGrammar(), this.loadVocabulary()]);
      const info = await bindXGrammarOutput(() => xg.TokenizerInfo.createTokenizerInfo(encoded, 'byte_level', false, VOCAB_SIZE, [END_OF_TEXT, EOM, EOT]));
      // XGrammar's own cache off (this class caches): a compile that aborts leaves its entry pending, and the
      // same grammar compiled again would then wait on it forever, spinning the thread that runs the engine.
      const compiler = await xg.GrammarCompiler.createGrammarCompiler(info, false);
      return { xg, compiler, vocabulary: describeVocabulary(encoded) };
    })();
    this.ready.catch(() => (this.ready = null));
    return this.ready;
  }

  async compile(source: GrammarSource): Promise<CompiledGrammar> {
    const key = JSON.stringify(source);
    let compiled = this.cache.get(key);
    if (compiled) {
      this.cache.delete(key);
    } else {
      compiled = this.compileNow(source);
      compiled.catch(() => this.cache.delete(key));
    }
    this.cache.set(key, compiled);
    for (const [old, grammar] of this.cache) {
      if (this.cache.size <= CACHED) break;
      this.cache.delete(old);
      void grammar.then((g) => g.dispose()).catch(() => {});
    }
    return compiled;
  }

  private async compileNow(source: GrammarSource): Promise<CompiledGrammar> {
    const { compiler } = await this.start();
    try {
      return await withXGrammarReason(() => {
        if (source.kind === 'ebnf') return compiler.compileGrammar(source.grammar, 'root');
        return compiler.compileJSONSchema(JSON.stringify(source.schema), false, -1, SEPARATORS, source.strict);
      });
    } catch (e) {
      const what = source.kind === 'ebnf' ? 'the grammar' : 'the JSON schema';
      throw new EngineError('invalid_constraint', `${what} cannot be compiled: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
