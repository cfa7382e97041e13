import { defineConfig, type Connect } from 'vite';
import { toolProxy } from './src/server/tool-proxy.js';

/**
 * The code interpreter's sandbox (an opaque-origin iframe) loads Pyodide from /pyodide/ cross-origin:
 * those files, and only those, are readable from any origin. (.wasm is already served as
 * application/wasm.) Static hosting of a build must send the same header for /pyodide/.
 */
const pyodideCors: Connect.NextHandleFunction = (req, res, next) => {
  if (req.url?.startsWith('/pyodide/')) res.setHeader('Access-Control-Allow-Origin', '*');
  next();
};

export default defineConfig({
  worker: { format: 'es' },
  server: { port: 5173 },
  plugins: [
    toolProxy(),
    {
      name: 'pyodide-cors',
      configureServer: (server) => void server.middlewares.use(pyodideCors),
      configurePreviewServer: (server) => void server.middlewares.use(pyodideCors),
    },
  ],
});
