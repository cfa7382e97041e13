/** XGrammar in a browser worker: bundled by vite, loaded on the first constrained request. */
import type { XGrammar } from './xgrammar';

export async function loadXGrammarBrowser(): Promise<XGrammar> {
  const module = (await import('@mlc-ai/web-xgrammar')) as XGrammar & { default?: XGrammar };
  return module.GrammarCompiler ? module : module.default!;
}
