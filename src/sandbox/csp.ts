/**
 * The sandbox frame's Content-Security-Policy. The frame is an opaque origin (no cookies, storage
 * or parent DOM) and this policy leaves its code nothing to reach but Pyodide's own files: no
 * network elsewhere, no eval, no images, frames, forms or navigation targets. A `data:` worker
 * inherits its creator's policy, so the same rules bind the Pyodide worker and model code in it.
 */

export interface SandboxCspOptions {
  /** Absolute URL of the Pyodide runtime directory. */
  indexUrl: string;
  /** Absolute URL of the Pyodide package directory, or null (offline: no extra packages). */
  packageBaseUrl: string | null;
  /** The nonce of the frame's one inline script. */
  nonce: string;
}

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

export function sandboxCsp({ indexUrl, packageBaseUrl, nonce }: SandboxCspOptions): string {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(nonce)) throw new Error('invalid CSP nonce');
  const runtime = cspSource(indexUrl);
  const fetched = packageBaseUrl === null ? runtime : `${runtime} ${cspSource(packageBaseUrl)}`;
  return [
    // Anything not allowed below is refused: img (beacons), frame, style, font, media, object, manifest.
    "default-src 'none'",
    // The bootstrap (by nonce, not 'unsafe-inline'), Pyodide's ES modules, and compiling wasm
    // (Pyodide and package .so files). No 'unsafe-eval': no eval/new Function for model code.
    `script-src 'nonce-${nonce}' ${runtime} 'wasm-unsafe-eval'`,
    // The Pyodide worker is a data: module worker (blob: fails in an opaque origin). Nested workers
    // the model could start are data: too and inherit this policy.
    'worker-src data:',
    // fetch() of Pyodide's wasm, standard library and lock file (and wheels from the package URL);
    // also bounds XHR, WebSocket, EventSource and sendBeacon to these directories.
    `connect-src ${fetched}`,
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
