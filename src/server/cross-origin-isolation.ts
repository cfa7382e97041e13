/**
 * Cross-origin isolation for the dev and preview servers (and what a static host must send for a
 * build): `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy`, which give the
 * page (and its workers) SharedArrayBuffer, so onnxruntime-web runs WASM on several threads.
 *
 * COEP `require-corp` (the default) works in every browser that isolates; cross-origin subresources must
 * then be CORS-readable or send Cross-Origin-Resource-Policy — the model hosts (Hugging Face, GitHub raw)
 * answer fetch() with CORS, and Pyodide's folder is served with `Access-Control-Allow-Origin: *`.
 * `credentialless` also admits no-CORS cross-origin images (sent without cookies) but Safari lacks it.
 * `LLAMA_COEP=credentialless|require-corp|off` chooses; without isolation WASM runs on one thread,
 * still correct.
 */
import type { Connect, Plugin } from 'vite';

export type EmbedderPolicy = 'require-corp' | 'credentialless' | 'off';

export function embedderPolicy(value = process.env.LLAMA_COEP): EmbedderPolicy {
  if (value === undefined || value === '') return 'require-corp';
  if (value === 'require-corp' || value === 'credentialless' || value === 'off') return value;
  throw new Error(`LLAMA_COEP must be require-corp, credentialless or off (got ${JSON.stringify(value)})`);
}

/** The response headers for a policy ({} when off). */
export function isolationHeaders(policy: EmbedderPolicy): Record<string, string> {
  return policy === 'off' ? {} : { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': policy };
}

export function crossOriginIsolationPlugin(policy: EmbedderPolicy = embedderPolicy()): Plugin {
  const headers = isolationHeaders(policy);
  const set: Connect.NextHandleFunction = (_req, res, next) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    next();
  };
  return {
    name: 'llama-agent:cross-origin-isolation',
    configureServer: (server) => void server.middlewares.use(set),
    configurePreviewServer: (server) => void server.middlewares.use(set),
  };
}
