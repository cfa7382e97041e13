/**
 * The CLI for tests, two ways with one result shape: `runInProcess` calls its entry (runCli) with
 * captured streams and an environment of its own (ms per command); `runAsProcess` runs
 * src/cli/main.ts as people and scripts do (tsx, no npm wrapper: the process contract itself —
 * real stdin, exit code, nothing else on stdout or stderr).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { MICRO_E2E_CASES } from '../../scripts/micro-llama/e2e-cases';
import { runCli } from '../../src/cli/run-cli';

const ROOT = join(import.meta.dirname, '../..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runInProcess(args: string[], stdin = '', env: Record<string, string> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    readStdin: async () => stdin,
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { ...process.env, ...env },
  });
  return { code, stdout, stderr };
}

export function runAsProcess(args: string[], stdin = '', env: Record<string, string> = {}): CliRun {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { input: stdin, encoding: 'utf8', cwd: ROOT, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A conversation or results file in a fresh temporary folder. */
export function tempFile(content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cli-')), 'conv.json');
  writeFileSync(file, content);
  return file;
}

/** The micro model's population case, its brave_search call answered from a recording (`--results`). */
export const OSLO = MICRO_E2E_CASES.find((c) => c.name === 'population (brave_search)')!;
export const osloResults = (): string => tempFile(JSON.stringify({ brave_search: { [String(OSLO.call!.arguments.query)]: OSLO.result } }));

/** `ask … --results osloResults() OSLO.question` ran unforced: the call, then the answer from the recording. */
export function expectOsloAnswer(r: CliRun): void {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { answer: string; finish: string; steps: Array<{ raw: string; stop: string; toolCalls: unknown[]; toolResults: Array<{ isError: boolean }> }> };
  expect(out.steps.map((s) => s.stop)).toEqual(['eom', 'eot']);
  expect(out.steps[0]!.toolCalls).toEqual([OSLO.call]);
  expect(out.steps[0]!.toolResults[0]!.isError).toBe(false);
  expect(out.answer).toContain('634,293');
}

/** Bad input: a one-line error on stderr matching `error`, nothing on stdout, exit code 2. */
export function expectOneLineError(r: CliRun, error: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(error);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
}
