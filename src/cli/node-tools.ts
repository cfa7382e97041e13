import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { braveSearchTool } from '../tools/brave-search';
import { DEMO_CORPUS_PUBLIC_PATH, documentsFromText, isTextDocumentName, LocalSearchIndex, type LocalDocument } from '../tools/local-search';
import { ToolError, type Tool } from '../tools/tool';
import type { ToolProvider } from '../tools/tool-provider';
import { proxyServicesOnce } from '../tools/proxy-services';
import { wolframAlphaTool } from '../tools/wolfram-alpha';
import { CliError } from './cli-error';

/** The local index's bundled documents (written by `npm run setup`: scripts/setup/demo-corpus.ts). */
export const DEMO_CORPUS_PATH = join(import.meta.dirname, '../../public', DEMO_CORPUS_PUBLIC_PATH);

export interface NodeToolOptions {
  /** Default `auto`: the proxy, and the local providers when it has no key or is not running. */
  provider?: ToolProvider;
  /** A directory whose .txt and .md files (recursively) join the local index. */
  docsDir?: string;
}

/**
 * The real tools as the CLI runs them in Node: brave_search and wolfram_alpha through the tool proxy
 * (TOOL_PROXY_URL, default the dev server's), answered on this machine (the local index over the demo
 * corpus and --docs, mathjs) when the proxy has no key or is not running. The code interpreter runs
 * only in a browser sandbox: in Node a code call gets an error result saying it is not enabled.
 */
export function nodeTools(options: NodeToolOptions = {}, env: NodeJS.ProcessEnv = process.env): Tool[] {
  const proxyBase = env.TOOL_PROXY_URL ?? DEFAULT_TOOL_PROXY_URL;
  const provider = options.provider ?? 'auto';
  let index: LocalSearchIndex | undefined;
  const localIndex = async () => (index ??= localSearchIndex(options.docsDir));
  const services = proxyServicesOnce(proxyBase); // one ask serves both query tools
  return [braveSearchTool({ proxyBase, provider, localIndex, services }), wolframAlphaTool({ proxyBase, provider, localMath: true, services })].map(withProxyHint);
}

/** The demo corpus plus the documents under `docsDir`. */
export function localSearchIndex(docsDir?: string): LocalSearchIndex {
  let demo: LocalDocument[];
  try {
    demo = JSON.parse(readFileSync(DEMO_CORPUS_PATH, 'utf8')) as LocalDocument[];
  } catch {
    throw new ToolError(`the local index has no demo corpus at ${DEMO_CORPUS_PATH}: run \`npm run setup\``);
  }
  const index = new LocalSearchIndex(demo);
  if (docsDir) index.add(documentsUnder(docsDir));
  return index;
}

function documentsUnder(dir: string): LocalDocument[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch (e) {
    throw new CliError(`--docs: cannot read the directory ${dir} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return names
    .filter((name) => isTextDocumentName(name) && statSync(join(dir, name)).isFile())
    .sort()
    .flatMap((name) => documentsFromText(relative(dir, join(dir, name)), readFileSync(join(dir, name), 'utf8')));
}

/** The dev server's proxy: its port is strict (vite.config.ts), so this is where `npm run dev` serves it. */
export const DEFAULT_TOOL_PROXY_URL = 'http://127.0.0.1:5173/api/tools/';

/** A proxy that cannot be reached: the result says how to point the CLI at one. */
function withProxyHint(tool: Tool): Tool {
  return {
    ...tool,
    async execute(args, context) {
      try {
        return await tool.execute(args, context);
      } catch (e) {
        if (e instanceof ToolError && /^could not reach the tool proxy/.test(e.message)) {
          throw new ToolError(`${e.message} (start it with \`npm run dev\`, which serves it on port 5173, or set TOOL_PROXY_URL to a running one)`, e.details);
        }
        throw e;
      }
    },
  };
}
