/**
 * Copies Pyodide's runtime from node_modules/pyodide into public/pyodide/ so the code interpreter's
 * sandbox loads it from the page's own origin (never a CDN): the ES module loader, the Emscripten
 * module, the wasm, the standard library and the lock file (package names and versions; the
 * package wheels themselves are not in the npm package). Skips files that are already current.
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Everything `loadPyodide` fetches or imports at startup, relative to its indexURL. */
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

export async function copyPyodideAssets(root: string, outDir: string): Promise<void> {
  const from = join(root, 'node_modules/pyodide');
  mkdirSync(outDir, { recursive: true });
  for (const file of PYODIDE_FILES) {
    const source = join(from, file);
    const target = join(outDir, file);
    if (existsSync(target) && statSync(target).size === statSync(source).size && statSync(target).mtimeMs >= statSync(source).mtimeMs) continue;
    copyFileSync(source, target);
  }
}
