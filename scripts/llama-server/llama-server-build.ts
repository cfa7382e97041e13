/**
 * Where this machine's llama-server lives and how it is built: from the llama.cpp source that the pinned
 * node-llama-cpp ships (`llama/gitRelease.bundle`), once per machine, into a cache outside the repo
 * (`$XDG_CACHE_HOME/llama-agent/` or `~/.cache/llama-agent/`), never committed.
 *
 * Invariants: the cache folder's name carries node-llama-cpp's version, the bundle's commit and the
 * recipe version, so a new pin or new flags build a new binary; `bin/llama-server` and `build.json`
 * appear only after a build succeeded (written under temporary names, renamed, build.json last); a
 * lock folder keeps two builds on one machine from running at once.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, homedir } from 'node:os';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

/** Bump when the flags or the steps below change. */
const RECIPE_VERSION = 1;

/**
 * Offline and minimal: no web UI (CMake would download a prebuilt one), no OpenSSL, no tests, examples
 * or unified app; static, so the binary does not depend on the deleted build tree.
 */
export const LLAMA_SERVER_CMAKE_FLAGS: readonly string[] = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_APP=OFF',
  '-DLLAMA_BUILD_TOOLS=ON',
  '-DLLAMA_BUILD_SERVER=ON',
];

/** The system tools a build needs (Debian package names in parentheses in the error). */
const TOOLS: ReadonlyArray<[command: string, pkg: string]> = [['git', 'git'], ['cmake', 'cmake'], ['ninja', 'ninja-build'], ['g++', 'g++']];

export interface LlamaServerSource {
  /** node-llama-cpp's version (package.json pins it exactly). */
  nodeLlamaCppVersion: string;
  /** The git bundle holding llama.cpp's source. */
  bundle: string;
  /** The commit the bundle's HEAD points at. */
  commit: string;
}

/** What build.json records next to the binary. */
export interface LlamaServerBuildInfo {
  nodeLlamaCppVersion: string;
  commit: string;
  recipe: number;
  cmakeFlags: string[];
  /** Wall-clock seconds of clone + configure + compile on this machine. */
  buildSeconds: number;
  builtAt: string;
}

const require = createRequire(import.meta.url);

export function llamaServerSource(): LlamaServerSource {
  const root = packageRoot(require.resolve('node-llama-cpp'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const bundle = join(root, 'llama', 'gitRelease.bundle');
  const heads = execFileSync('git', ['bundle', 'list-heads', bundle], { encoding: 'utf8' });
  const commit = /^([0-9a-f]{40}) HEAD$/m.exec(heads)?.[1];
  if (!commit) throw new Error(`llama-server: ${bundle} has no HEAD (git bundle list-heads said: ${heads.trim()})`);
  return { nodeLlamaCppVersion: pkg.version, bundle, commit };
}

/** The folder above `file` that holds node-llama-cpp's package.json (its exports hide that file). */
function packageRoot(file: string): string {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'llama'))) return dir;
  }
  throw new Error(`llama-server: no node-llama-cpp package above ${file}`);
}

/** The cache folder for this source and recipe. */
export function llamaServerDir(source: LlamaServerSource = llamaServerSource()): string {
  const cacheRoot = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cacheRoot, 'llama-agent', `llama-server-${source.nodeLlamaCppVersion}-${source.commit.slice(0, 12)}-r${RECIPE_VERSION}`);
}

/** The binary's path, whether or not it is built yet. */
export function llamaServerBinaryPath(source?: LlamaServerSource): string {
  return join(llamaServerDir(source), 'bin', 'llama-server');
}

/** build.json of a finished build, or null when there is none. */
export async function readLlamaServerBuild(source?: LlamaServerSource): Promise<LlamaServerBuildInfo | null> {
  const dir = llamaServerDir(source);
  const text = await readFile(join(dir, 'build.json'), 'utf8').catch(() => null);
  if (text === null || !(await stat(join(dir, 'bin', 'llama-server')).catch(() => null))) return null;
  return JSON.parse(text) as LlamaServerBuildInfo;
}

/**
 * Returns the binary, building it first when this machine has none (about 10 minutes on 2 cores, at
 * nice 19). Throws with the missing Debian packages named when a tool is absent.
 */
export async function ensureLlamaServer(log: (line: string) => void = () => {}): Promise<string> {
  const source = llamaServerSource();
  const binary = llamaServerBinaryPath(source);
  if (await readLlamaServerBuild(source)) return binary;
  const missing = TOOLS.filter(([cmd]) => !onPath(cmd)).map(([, pkg]) => pkg);
  if (missing.length > 0) {
    throw new Error(`llama-server: building it needs ${missing.join(', ')} (apt-get install ${missing.join(' ')}); .ci/run installs them`);
  }
  const dir = llamaServerDir(source);
  await mkdir(dirname(dir), { recursive: true });
  await withLock(`${dir}.lock`, async () => {
    if (await readLlamaServerBuild(source)) return;
    await build(source, dir, log);
  });
  return binary;
}

async function build(source: LlamaServerSource, dir: string, log: (line: string) => void): Promise<void> {
  await removeAbandonedWork(dir);
  const work = `${dir}.work-${process.pid}`;
  const src = join(work, 'src');
  const out = join(work, 'build');
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const t0 = performance.now();
  try {
    log(`llama-server: building llama.cpp ${source.commit.slice(0, 12)} (node-llama-cpp ${source.nodeLlamaCppVersion}) into ${dir}`);
    await run('git', ['clone', '--quiet', source.bundle, src], work);
    await run('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', source.commit], src);
    await run('cmake', ['-S', src, '-B', out, '-G', 'Ninja', ...LLAMA_SERVER_CMAKE_FLAGS], work);
    await run('nice', ['-n', '19', 'ninja', '-C', out, '-j', String(Math.max(1, cpus().length)), 'llama-server'], work);
    await mkdir(join(dir, 'bin'), { recursive: true });
    const tmp = join(dir, 'bin', `llama-server.tmp-${process.pid}`);
    await run('cp', [join(out, 'bin', 'llama-server'), tmp], work);
    await rename(tmp, join(dir, 'bin', 'llama-server'));
    const info: LlamaServerBuildInfo = {
      nodeLlamaCppVersion: source.nodeLlamaCppVersion,
      commit: source.commit,
      recipe: RECIPE_VERSION,
      cmakeFlags: [...LLAMA_SERVER_CMAKE_FLAGS],
      buildSeconds: Math.round((performance.now() - t0) / 100) / 10,
      builtAt: new Date().toISOString(),
    };
    await writeFile(join(dir, 'build.json.tmp'), `${JSON.stringify(info, null, 2)}\n`);
    await rename(join(dir, 'build.json.tmp'), join(dir, 'build.json'));
    log(`llama-server: built in ${info.buildSeconds} s`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Deletes the work folders of earlier builds of `dir` whose process is gone (killed mid-build). */
async function removeAbandonedWork(dir: string): Promise<void> {
  const prefix = `${basename(dir)}.work-`;
  for (const name of await readdir(dirname(dir))) {
    const pid = Number(name.slice(prefix.length));
    if (name.startsWith(prefix) && Number.isInteger(pid) && !alive(pid)) await rm(join(dirname(dir), name), { recursive: true, force: true });
  }
}

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs a command, its output kept; a failure's error ends with the last lines it printed. */
function run(command: string, args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`llama-server build: ${command} ${args.join(' ')} exited with ${code}\n${tail}`));
    });
  });
}

/** Holds `lockDir` (created atomically) while `fn` runs; waits while a live process holds it. */
async function withLock(lockDir: string, fn: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch {
      const holder = Number(await readFile(join(lockDir, 'pid'), 'utf8').catch(() => 'NaN'));
      if (Number.isInteger(holder) && holder !== process.pid && !alive(holder)) {
        await rm(lockDir, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  try {
    await writeFile(join(lockDir, 'pid'), String(process.pid));
    await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
