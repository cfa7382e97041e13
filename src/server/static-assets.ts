/**
 * How the dev and preview servers (and a build) serve the page's own heavy assets: Pyodide readable
 * by the opaque-origin sandbox, models/ on the preview server, onnxruntime-web's wasm never inlined.
 * Node-only (vite config).
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { Connect, Plugin } from 'vite';

/**
 * The code interpreter's sandbox (an opaque-origin iframe) loads Pyodide from /pyodide/ cross-origin:
 * those files, and only those, are readable from any origin. (.wasm is already served as
 * application/wasm.) Static hosting of a build must send the same header for /pyodide/.
 */
const pyodideCors: Connect.NextHandleFunction = (req, res, next) => {
  if (req.url?.startsWith('/pyodide/')) res.setHeader('Access-Control-Allow-Origin', '*');
  next();
};

export function pyodideCorsPlugin(): Plugin {
  return {
    name: 'llama-agent:pyodide-cors',
    configureServer: (server) => void server.middlewares.use(pyodideCors),
    configurePreviewServer: (server) => void server.middlewares.use(pyodideCors),
  };
}

const MODEL_FILE_TYPES: Record<string, string> = { '.json': 'application/json', '.wasm': 'application/wasm', '.txt': 'text/plain' };

/**
 * models/ is served at /models/ by the dev server (it serves the project root); the preview server
 * serves only the build, so this serves models/ there too: `npm run build && npm run preview` is the
 * offline demo (tokenizer, local and fetched models, Pyodide — nothing from another origin).
 * Invariant: only files inside models/ are served; a path under /models/ that does not decode is a
 * 400 in words (never an exception, which would show a stack trace with absolute paths).
 */
export function modelsInPreviewPlugin(root: string): Plugin {
  const base = join(root, 'models');
  const serve: Connect.NextHandleFunction = (req, res, next) => {
    const raw = (req.url ?? '').split('?')[0] ?? '';
    if (!raw.startsWith('/models/') || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    const path = decodeOrNull(raw);
    if (path === null) {
      // decodeURIComponent throws on `%` not followed by two hex digits (or bytes that are not UTF-8).
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
      return void res.end('bad percent-encoding in the path: every % must start a %XX escape of UTF-8\n');
    }
    const file = normalize(join(base, path.slice('/models/'.length)));
    if (!file.startsWith(base + sep) || !existsSync(file) || !statSync(file).isFile()) return next();
    res.setHeader('Content-Type', MODEL_FILE_TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', statSync(file).size);
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  };
  return { name: 'llama-agent:models-in-preview', configurePreviewServer: (server) => void server.middlewares.use(serve) };
}

function decodeOrNull(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}

/**
 * onnxruntime-web falls back to `new URL('ort-wasm-….wasm', import.meta.url)` when no wasmPaths are
 * set; the engine always sets them (public/ort/), so bundling those fallbacks only adds dead copies
 * (inlined as 20+ MB of base64 each in a library build). This makes the unused fallback a runtime URL.
 */
export function ortWasmFallbackNotBundled(): Plugin {
  const pattern = /new URL\((["'`])(ort-wasm[^"'`]*?)\1,\s*import\.meta\.url\)/g;
  return {
    name: 'llama-agent:ort-wasm-fallback-not-bundled',
    enforce: 'pre',
    apply: 'build',
    transform(code, id) {
      if (!id.includes('onnxruntime-web') || !code.includes('ort-wasm')) return null;
      return { code: code.replace(pattern, (_m, q: string, file: string) => `new URL(${q}${file}${q} + "", import.meta.url)`), map: null };
    },
  };
}
