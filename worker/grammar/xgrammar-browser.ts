/**
 * XGrammar in a browser worker, loaded on the first constrained request. vite (its dev pre-bundling,
 * where vite.config.ts includes it, and the production build alike) wraps the package's UMD bundle as
 * CommonJS, so its exports arrive on `default`; an ESM build of it would have them at the top.
 */
import type { XGrammar } from './xgrammar';

export async function loadXGrammarBrowser(): Promise<XGrammar> {
  const module = (await import('@mlc-ai/web-xgrammar')) as XGrammar & { default?: XGrammar };
  return module.GrammarCompiler ? module : module.default!;
}
