/**
 * Pyodide's files, fetched by the host page (the sandbox itself has connect-src 'none'): the
 * runtime (wasm, standard library, lock file) once per runtime directory, kept for every
 * interpreter started from it, and package files on a worker's request.
 *
 * Invariants: a failed load is not kept (the next interpreter tries again); each interpreter gets its
 * own copy of the buffers (they are transferred into its frame); a package file is fetched only if
 * it belongs to a package that the code of the run in flight imports (by name, in its text) or one
 * those depend on, as the lock file says — so what the package server sees follows from code the
 * user can read, not from anything computed inside the sandbox — from the configured package
 * directory, checked against the lock's sha256.
 */
import { oncePerUrl } from '../loading/once-per-url';
import type { PyodideFiles } from './protocol';

interface LockPackage {
  name: string;
  file: string;
  sha256: string;
  imports: string[];
  depends: string[];
}

interface Runtime {
  files: PyodideFiles;
  /** Every package in the lock file, by name. */
  packages: ReadonlyMap<string, LockPackage>;
}

async function fetchOk(url: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (cause) {
    throw new Error(`could not load ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  if (!response.ok) throw new Error(`could not load ${url}: HTTP ${response.status}`);
  return response;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function lockPackages(lock: string): Map<string, LockPackage> {
  const parsed = JSON.parse(lock) as { packages?: Record<string, Record<string, unknown>> };
  const out = new Map<string, LockPackage>();
  for (const [name, pkg] of Object.entries(parsed.packages ?? {})) {
    if (typeof pkg.file_name !== 'string' || typeof pkg.sha256 !== 'string') continue;
    out.set(name, { name, file: pkg.file_name, sha256: pkg.sha256, imports: strings(pkg.imports), depends: strings(pkg.depends) });
  }
  return out;
}

/** The packages `code` can need: those whose import names follow `import`/`from` in it, and their dependencies. */
function packagesFor(code: string, packages: ReadonlyMap<string, LockPackage>): Set<LockPackage> {
  const modules = new Set<string>();
  for (const m of code.matchAll(/\b(?:import|from)\s+([\w.]+(?:\s*,\s*[\w.]+)*)/g)) {
    for (const name of m[1]!.split(',')) modules.add(name.trim().split('.')[0]!);
  }
  const out = new Set<LockPackage>();
  const add = (pkg: LockPackage | undefined) => {
    if (!pkg || out.has(pkg)) return;
    out.add(pkg);
    for (const dep of pkg.depends) add(packages.get(dep));
  };
  for (const pkg of packages.values()) if (pkg.imports.some((i) => modules.has(i))) add(pkg);
  return out;
}

/** The bytes at `url`, which must start with `magic` (a server's HTML fallback page is not the file). */
async function fetchFile(url: string, magic: readonly number[], what: string): Promise<ArrayBuffer> {
  const bytes = await (await fetchOk(url)).arrayBuffer();
  const head = new Uint8Array(bytes, 0, Math.min(magic.length, bytes.byteLength));
  if (!magic.every((b, i) => head[i] === b)) throw new Error(`${url} is not ${what}: is Pyodide served from ${url.slice(0, url.lastIndexOf('/') + 1)}?`);
  return bytes;
}

async function loadRuntime(indexUrl: string): Promise<Runtime> {
  const [wasm, stdlib, lock] = await Promise.all([
    fetchFile(`${indexUrl}pyodide.asm.wasm`, [0x00, 0x61, 0x73, 0x6d], 'a WebAssembly file'),
    fetchFile(`${indexUrl}python_stdlib.zip`, [0x50, 0x4b], 'a zip file'),
    fetchOk(`${indexUrl}pyodide-lock.json`).then((r) => r.text()),
  ]);
  let packages: Map<string, LockPackage>;
  try {
    packages = lockPackages(lock);
  } catch {
    throw new Error(`${indexUrl}pyodide-lock.json is not Pyodide's lock file (not JSON)`);
  }
  return { files: { wasm, stdlib, lock }, packages };
}

const runtime = oncePerUrl(loadRuntime);

/** A fresh copy of the runtime files of `indexUrl` (absolute, ending in '/'). */
export async function pyodideFiles(indexUrl: string): Promise<PyodideFiles> {
  const { files } = await runtime(indexUrl);
  return { wasm: files.wasm.slice(0), stdlib: files.stdlib.slice(0), lock: files.lock };
}

const hexToBase64 = (hex: string) => btoa(String.fromCharCode(...(hex.match(/../g) ?? []).map((b) => parseInt(b, 16))));

/**
 * A package file that the imports of `code` need (see the module comment), from `packageBaseUrl`:
 * its bytes, or the status that stopped it (0: refused or unreachable).
 */
export async function packageFile(indexUrl: string, packageBaseUrl: string, code: string, file: string): Promise<{ status: number; bytes: ArrayBuffer | null }> {
  const pkg = [...packagesFor(code, (await runtime(indexUrl)).packages)].find((p) => p.file === file);
  if (pkg === undefined) return { status: 0, bytes: null };
  try {
    const response = await fetch(new URL(file, packageBaseUrl).href, { integrity: `sha256-${hexToBase64(pkg.sha256)}` });
    return response.ok ? { status: response.status, bytes: await response.arrayBuffer() } : { status: response.status, bytes: null };
  } catch {
    return { status: 0, bytes: null };
  }
}
