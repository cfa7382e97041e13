/**
 * `ask --mcp URL` and `ask --mcp-stdio "COMMAND"` with the micro model, unforced: "When are you open on
 * Monday?" answered from the tests' MCP server (its hours are not the widget demo's).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../../tests/support/cli';
import { freePort, TEST_SERVER_STDIO } from '../../tests/support/mcp-processes';
import { BAKERY_HOURS, serveMcpOverHttp, type HttpMcpServer } from '../../tests/support/mcp-test-server';

const MONDAY = BAKERY_HOURS.Monday!;
let server: HttpMcpServer;
beforeAll(async () => {
  server = await serveMcpOverHttp();
  // A fixed day whose number is no prefix of the hours: the micro model copies from its context, the date line included.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-03-21T10:00:00'));
});
afterAll(async () => {
  vi.useRealTimers();
  await server.close();
});

interface Answer {
  answer: string;
  finish: string;
  steps: Array<{ toolCalls: Array<{ name: string; arguments: unknown }>; toolResults: Array<{ name: string; content: string; isError: boolean }> }>;
  mcp: Array<{ server: string; state: string; error?: string; tools: string[]; refused: unknown[] }>;
}

async function ask(args: string[], env: Record<string, string> = {}, stderr = ''): Promise<Answer> {
  const run = await runInProcess(['ask', ...args, 'When are you open on Monday?'], '', env);
  expect(run.stderr).toBe(stderr);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as Answer;
}

function expectAnsweredFromServer(out: Answer): void {
  expect(out.steps[0]!.toolCalls).toEqual([{ kind: 'custom', name: 'get_opening_hours', arguments: { day: 'Monday' } }]);
  expect(out.steps[0]!.toolResults).toEqual([{ name: 'get_opening_hours', content: `{"day": "Monday", "open": "${MONDAY.open}", "close": "${MONDAY.close}"}`, isError: false }]);
  expect(out.finish).toBe('done');
  expect(out.answer).toContain(MONDAY.open);
  expect(out.answer).toContain(MONDAY.close);
}

describe('ask with MCP servers (the micro model, unforced)', () => {
  it('--mcp URL: calls the server\'s bakery tool and answers from its data, with the token sent and not printed', async () => {
    const out = await ask(['--mcp', server.url], { MCP_TOKEN: 'tok-123' });
    expectAnsweredFromServer(out);
    expect(out.mcp).toEqual([expect.objectContaining({ server: server.url, state: 'connected', refused: [] })]);
    expect(out.mcp[0]!.tools).toContain('get_opening_hours');
    expect(server.headers.at(-1)!.authorization).toBe('Bearer tok-123');
    expect(JSON.stringify(out)).not.toContain('tok-123');
  });

  it('--mcp-stdio "COMMAND": the same server as a process', async () => {
    const out = await ask(['--mcp-stdio', TEST_SERVER_STDIO]);
    expectAnsweredFromServer(out);
    expect(out.mcp).toEqual([expect.objectContaining({ server: TEST_SERVER_STDIO, state: 'connected' })]);
  });

  it('a server that cannot connect is reported on stderr and in `mcp`, and the run goes on without it', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/mcp`;
    const run = await runInProcess(['ask', '--mcp', dead, '--mcp', server.url, 'When are you open on Monday?']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`MCP server ${dead}: fetch failed (ECONNREFUSED)\n`);
    const out = JSON.parse(run.stdout) as Answer;
    expect(out.mcp[0]).toEqual({ server: dead, state: 'failed', error: 'fetch failed (ECONNREFUSED)', tools: [], refused: [] });
    expectAnsweredFromServer(out);
  });

  it('a bad --mcp URL or --mcp-stdio command is a one-line usage error (exit 2)', async () => {
    const url = await runInProcess(['ask', '--mcp', 'ftp://example.com/mcp', 'hi']);
    expect([url.code, url.stderr]).toEqual([2, 'error: --mcp: an MCP server URL must be http or https, got ftp:\n']);
    const command = await runInProcess(['ask', '--mcp-stdio', 'node "x', 'hi']);
    expect([command.code, command.stderr]).toEqual([2, 'error: --mcp-stdio: unclosed " in "node \\"x"\n']);
  });
});
