/**
 * An npm script of this repository as people run it (`npm run -s SCRIPT -- ARGS`), in a child process
 * of its own process group, resolved once its output shows the URL it serves (tests only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

export interface NpmScript {
  child: ChildProcess;
  /** The first match of `ready`'s group 1 in the script's output (colours stripped). */
  url: string;
  /** Still running (no exit code, no signal). */
  alive(): boolean;
  stop(): void;
}

/** `ready`: finds the URL in stdout+stderr, e.g. `/serving \S+ at (http:\S+)/`. */
export function startNpmScript(script: string, args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<NpmScript> {
  const child = spawn('npm', ['run', '-s', script, '--', ...args], { cwd: ROOT, detached: true, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const alive = () => child.exitCode === null && child.signalCode === null;
  const stop = () => {
    if (child.pid && alive()) process.kill(-child.pid, 'SIGTERM');
  };
  return new Promise((resolve, reject) => {
    let out = '';
    const read = (d: Buffer) => {
      out += d.toString().replace(/\x1b\[[0-9;]*m/g, '');
      const url = ready.exec(out)?.[1];
      if (url) resolve({ child, url, alive, stop });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`npm run ${script} exited (${code}): ${out}`)));
  });
}
