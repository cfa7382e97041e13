/**
 * The malformed-target rule on the real servers, started as their npm scripts start them: `npm run
 * serve` (with a key: a 401 would show the key check ran first), `npm run dev` and `npm run preview`
 * (vite.config.ts, the guard plugin among the others). The request lines people reported stopping a
 * server, then 240 generated ones (fast-check, fixed seed): every answer is a 400 — ours, before any
 * gate, or Node's HTTP parser's own for a line it rejects itself — and afterwards each server is still
 * running and answers a normal request.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNpmScript, type NpmScript } from '../../tests/support/npm-script';
import { rawRequest } from '../../tests/support/raw-http';
import { malformedTargetReason } from './malformed-target';

const KEY = 'fuzz-key';
const VITE_READY = /Local:\s+(http:\/\/\S+?)\/?\s/;
let outDir: string;
const servers: Partial<Record<'serve' | 'dev' | 'preview', NpmScript>> = {};

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'malformed-fuzz-'));
  await writeFile(join(outDir, 'index.html'), '<!doctype html><title>built</title>');
  [servers.serve, servers.dev, servers.preview] = await Promise.all([
    startNpmScript('serve', ['--port', '0'], /serving \S+ at (http:\S+)/, { LLAMA_API_KEY: KEY }),
    startNpmScript('dev', ['--port', '0'], VITE_READY),
    startNpmScript('preview', ['--port', '0', '--outDir', outDir], VITE_READY),
  ]);
}, 180_000);
afterAll(async () => {
  for (const server of Object.values(servers)) server?.stop();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

/**
 * Brackets, percent signs, delimiters; now and then a tab, a control byte or non-ASCII, which Node's
 * parser refuses itself. No space, CR or LF: they would reframe the line.
 */
const ASCII = [...'[]%/\\@:?#{}|^`"aZ09.-~!$&\'()*+,;='];
const PARSER_REFUSES = ['\t', '\x01', '\x7f', 'é', '中', '😀', '\u2028'];
const noise = fc.string({ unit: fc.oneof({ arbitrary: fc.constantFrom(...ASCII), weight: 30 }, { arbitrary: fc.constantFrom(...PARSER_REFUSES), weight: 1 }), maxLength: 10 });
const BAD_PERCENT = ['%', '%z', '%zz', '%E0%A4%A', '%E0%A4', '%C3', '%FF', '%ED%A0%80', '%C0%80'];
const BAD_AUTHORITY = ['[', '[::1', '[v1.x]', '%', 'a%zz', 'xn--a', '1.2.3.256', '0x100000000', '', '@', 'a:b', ':80', '[::1]x'];

const malformedTarget = fc.oneof(
  // Origin form whose path URL parsers read as a host.
  fc.tuple(fc.constantFrom('//', '/\\'), noise).map(([start, rest]) => start + rest),
  // Absolute form with an invalid host, or a port over 65535.
  fc.tuple(fc.constantFrom('http', 'https', 'HTTP'), fc.oneof(fc.constantFrom(...BAD_AUTHORITY), fc.integer({ min: 65_536, max: 10_000_000 }).map((p) => `127.0.0.1:${p}`)), noise).map(([scheme, authority, path]) => `${scheme}://${authority}/${path}`),
  // An invalid percent-encoding at the end of the path or the query.
  fc.tuple(fc.constantFrom('/', '/v1/models/', '/api/engine/v1/models?q=', '/api/tools/brave_search?q='), noise, fc.constantFrom(...BAD_PERCENT)).map(([start, mid, bad]) => start + mid + bad),
  // Neither origin nor absolute form.
  fc.tuple(fc.constantFrom('[', '%', ':99999', '@', '?', '.', '*', 'v1/', 'ftp://x/', 'localhost:80', '\u00e9'), noise).map(([start, rest]) => start + rest),
);
const GENERATED = fc.sample(malformedTarget, { seed: 20_260_811, numRuns: 240 });
/** The lines reported to stop a server, first. */
const TARGETS = ['//[', '//%', 'http://[', '//:99999', 'http://127.0.0.1:99999/', '/v1/models/%E0%A4%A', ...GENERATED];

function address(server: NpmScript | undefined): { host: string; port: number } {
  const url = new URL(server!.url);
  return { host: url.hostname, port: Number(url.port) };
}

describe.each([
  { name: 'npm run serve', kind: 'serve' as const, normal: { target: '/v1/models', headers: { Authorization: `Bearer ${KEY}` } } },
  { name: 'npm run dev (vite)', kind: 'dev' as const, normal: { target: '/' } },
  { name: 'npm run preview (vite preview)', kind: 'preview' as const, normal: { target: '/' } },
])('$name', ({ kind, normal }) => {
  it(`answers ${TARGETS.length} malformed request targets with 400 and goes on serving`, async () => {
    const { host, port } = address(servers[kind]);
    expect(GENERATED.length).toBeGreaterThanOrEqual(200);
    const wrong: string[] = [];
    let ours = 0;
    for (const target of TARGETS) {
      expect(malformedTargetReason('GET', target), target).not.toBeNull();
      const answer = await rawRequest({ host, port, target, headers: { Host: 'evil.example' } }).catch((e: unknown) => ({ status: -1, body: String(e) }));
      // Ours carries a JSON error; the HTTP parser's own 400 has no body.
      const ok = answer.status === 400 && (answer.body === '' || /"error"/.test(answer.body));
      if (ok && answer.body !== '') ours++;
      if (!ok) wrong.push(`${JSON.stringify(target)} → ${answer.status} ${answer.body.slice(0, 120)}`);
      if (!servers[kind]!.alive()) break;
    }
    expect(wrong).toEqual([]);
    // Most lines get past Node's parser: the servers' own rule answers them.
    console.log(`${kind}: ${ours} of ${TARGETS.length} answered by the server, the rest by Node's HTTP parser`);
    expect(ours).toBeGreaterThan(TARGETS.length / 2);
    expect(servers[kind]!.alive()).toBe(true);
    const after = await rawRequest({ host, port, ...normal });
    expect(after.status).toBe(200);
  }, 120_000);
});
