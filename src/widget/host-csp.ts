/**
 * What a host page's Content-Security-Policy must allow for `<llama-chat>` to work, per directive.
 * Measured, not guessed: tests/browser/widget.browser.test.ts serves a host page whose policy is
 * exactly these sources (plus default-src 'none') and requires a full conversation with Python and
 * no violation. Styles need nothing: the widget adopts constructed stylesheets (src/ui/styles.ts).
 *
 * - script-src: the widget's module and assets origins (the engine worker's chunks, onnxruntime's and
 *   Pyodide's ES modules), 'wasm-unsafe-eval' (compiling WebAssembly), and the hash of the Python
 *   sandbox frame's one inline script (a srcdoc frame inherits the host's policy).
 * - worker-src: blob: (the engine worker is a same-origin blob module that imports the real script,
 *   whose origin is checked here too) and data: (the Pyodide worker inside the sandbox frame).
 * - connect-src: the assets origin (model files, wasm, Pyodide's files), the tool proxy's origin
 *   (brave_search, wolfram_alpha), the engine server's (engine-url), the MCP servers' (mcp-servers,
 *   addMcpServer) and the origins of remote models' files.
 */

export type HostCspDirective = 'script-src' | 'worker-src' | 'connect-src';
export type HostCsp = Record<HostCspDirective, string[]>;

export interface HostCspInputs {
  /** URL of the widget's module (import.meta.url of the build). */
  moduleUrl: string;
  /** The folder holding models/, ort/ and pyodide/. */
  assetsBase: string;
  /** The brave_search / wolfram_alpha proxy endpoint. */
  proxyEndpoint: string;
  /** URLs remote models are fetched from (web-llm weights and libraries). */
  remoteModelUrls: readonly string[];
  /** The engine server the element's engine-url names (the engine worker fetches it). */
  engineUrl?: string;
  /** The MCP servers the element connects to. */
  mcpServerUrls?: readonly string[];
}

const origin = (url: string): string => new URL(url).origin;
const unique = (items: string[]): string[] => [...new Set(items)];
/** An MCP server's origin; a URL that does not parse is left out (adding that server fails with why). */
const httpOrigin = (url: string): string[] => (URL.canParse(url) ? [origin(url)] : []);

export async function hostCspSources(inputs: HostCspInputs): Promise<HostCsp> {
  const code = unique([origin(inputs.moduleUrl), origin(inputs.assetsBase)]);
  return {
    'script-src': [...code, "'wasm-unsafe-eval'", await sandboxFrameHash()],
    'worker-src': ['blob:', 'data:', ...code],
    'connect-src': unique([origin(inputs.assetsBase), origin(inputs.proxyEndpoint), ...(inputs.engineUrl ? [origin(inputs.engineUrl)] : []), ...(inputs.mcpServerUrls ?? []).flatMap(httpOrigin), ...inputs.remoteModelUrls.map(origin)]),
  };
}

/** The sources as policy text ("script-src …; worker-src …; connect-src …"). */
export function hostCspText(csp: HostCsp): string {
  return (Object.keys(csp) as HostCspDirective[]).map((d) => `${d} ${csp[d].join(' ')}`).join('; ');
}

/** The hash of the sandbox frame's inline script (its sources load only here, as in the sandbox). */
async function sandboxFrameHash(): Promise<string> {
  const [{ scriptHashSource }, { frameScript }] = await Promise.all([import('../sandbox/csp'), import('../sandbox/sandbox-frame')]);
  return scriptHashSource(frameScript());
}
