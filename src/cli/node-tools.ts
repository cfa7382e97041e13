import { braveSearchTool } from '../tools/brave-search';
import type { Tool } from '../tools/tool';
import { wolframAlphaTool } from '../tools/wolfram-alpha';

/**
 * The real tools as the CLI runs them in Node: brave_search and wolfram_alpha through the tool proxy
 * (TOOL_PROXY_URL, default the dev server's). The code interpreter runs only in a browser sandbox:
 * in Node a code call gets an error result saying it is not enabled.
 */
export function nodeTools(): Tool[] {
  const proxyBase = process.env.TOOL_PROXY_URL ?? 'http://127.0.0.1:5173/api/tools/';
  return [braveSearchTool({ proxyBase }), wolframAlphaTool({ proxyBase })];
}
