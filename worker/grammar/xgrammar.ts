/**
 * XGrammar (`@mlc-ai/web-xgrammar`, the MLC team's grammar engine compiled to WASM) as the worker
 * uses it. The package is one UMD bundle labelled ESM: Node loads it as CommonJS (xgrammar-node.ts),
 * a browser worker through the bundler (xgrammar-browser.ts).
 */
import type * as XGrammarModule from '@mlc-ai/web-xgrammar';

export type XGrammar = typeof XGrammarModule;
export type CompiledGrammar = XGrammarModule.CompiledGrammar;
export type GrammarMatcher = XGrammarModule.GrammarMatcher;
export type XGrammarCompiler = XGrammarModule.GrammarCompiler;

export type XGrammarLoader = () => Promise<XGrammar>;

const sinks = new Set<string[]>();
const consoleError = console.error;
/** XGrammar's error output: to the console, or to the reasons being collected. */
function relay(...args: unknown[]): void {
  if (sinks.size === 0) return consoleError.apply(console, args);
  for (const sink of sinks) sink.push(args.map(String).join(' '));
}

/**
 * Runs the first XGrammar call, which instantiates its WASM: the module binds `console.error` as its
 * error output then, so it is bound to the relay that withXGrammarReason listens on.
 */
export async function bindXGrammarOutput<T>(first: () => Promise<T>): Promise<T> {
  const saved = console.error;
  console.error = relay;
  try {
    return await first();
  } finally {
    console.error = saved;
  }
}

/**
 * Runs an XGrammar call that may abort (a schema or grammar it cannot compile): its WASM prints the
 * reason (`[FATAL] file.cc:N: reason`) and throws "Aborted()". The reason is collected (not printed)
 * and thrown as the error's message.
 */
export async function withXGrammarReason<T>(run: () => Promise<T>): Promise<T> {
  const printed: string[] = [];
  sinks.add(printed);
  try {
    return await run();
  } catch (e) {
    const fatal = printed.map((line) => /\[FATAL\][^:]*:\d+: (.*)$/s.exec(line)?.[1]).filter(Boolean).at(-1);
    throw new Error(fatal ?? (e instanceof Error ? e.message : String(e)));
  } finally {
    sinks.delete(printed);
  }
}
