/**
 * The sandbox frame's Content-Security-Policy. The frame is an opaque origin (no cookies, storage
 * or parent DOM) and this policy leaves its code no way to reach any origin: connect-src 'none'
 * (no fetch, XHR, WebSocket, EventSource or beacon anywhere, the page's own origin included — the
 * host fetches Pyodide's files and hands them over), no eval, no images, frames, forms or
 * navigation targets, and scripts only from the two exact Pyodide module URLs. A `data:` worker
 * inherits its creator's policy, so the same rules bind the Pyodide worker and model code in it.
 */

export interface SandboxCspOptions {
  /** Absolute URL of the Pyodide runtime directory. */
  indexUrl: string;
  /** The nonce of the frame's one inline script. */
  nonce: string;
}

/** The ES modules the worker imports from the runtime directory (everything else arrives as bytes). */
export const PYODIDE_MODULES = ['pyodide.mjs', 'pyodide.asm.mjs'] as const;

/**
 * A URL as a CSP source expression: scheme, host, port and path only (a path ending in '/' matches
 * the directory). The characters that would end a directive or a source are percent-encoded (CSP
 * matches paths percent-decoded, so the meaning is kept).
 */
export function cspSource(url: string): string {
  const u = new URL(url);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`sandbox asset URL must be http(s): ${url}`);
  const path = u.pathname.replace(/[;,']/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${u.origin}${path}`;
}

export function sandboxCsp({ indexUrl, nonce }: SandboxCspOptions): string {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(nonce)) throw new Error('invalid CSP nonce');
  const modules = PYODIDE_MODULES.map((file) => cspSource(new URL(file, indexUrl).href)).join(' ');
  return [
    // Anything not allowed below is refused: img (beacons), frame, style, font, media, object, manifest.
    "default-src 'none'",
    // The bootstrap (by nonce, not 'unsafe-inline'), Pyodide's two ES modules (exact files, not the
    // directory), and compiling wasm (Pyodide and package .so files). No 'unsafe-eval': no
    // eval/new Function for model code.
    `script-src 'nonce-${nonce}' ${modules} 'wasm-unsafe-eval'`,
    // The Pyodide worker is a data: module worker (blob: fails in an opaque origin). The worker
    // removes the Worker constructor before model code runs.
    'worker-src data:',
    // No channel to any origin: the host supplies every file (protocol.ts).
    "connect-src 'none'",
    // Not covered by default-src: no <base> rewriting and no form submissions anywhere.
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** A CSP hash source for an inline script's exact text: `'sha256-<base64>'`. Needs WebCrypto (a secure context). */
export async function scriptHashSource(text: string): Promise<string> {
  if (!globalThis.crypto?.subtle) throw new Error('computing a CSP hash needs WebCrypto (a secure context: https or localhost)');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
}
