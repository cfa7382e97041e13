import { braveSearchTool } from '../tools/brave-search';
import { ToolError, type Tool } from '../tools/tool';
import { wolframAlphaTool } from '../tools/wolfram-alpha';

/**
 * The real tools as the CLI runs them in Node: brave_search and wolfram_alpha through the tool proxy
 * (TOOL_PROXY_URL, default the dev server's). The code interpreter runs only in a browser sandbox:
 * in Node a code call gets an error result saying it is not enabled.
 */
export function nodeTools(): Tool[] {
  const proxyBase = process.env.TOOL_PROXY_URL ?? DEFAULT_TOOL_PROXY_URL;
  return [braveSearchTool({ proxyBase }), wolframAlphaTool({ proxyBase })].map(withProxyHint);
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
