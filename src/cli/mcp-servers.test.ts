/**
 * MCP servers as processes: @modelcontextprotocol/server-everything over Streamable HTTP and stdio, and
 * the tests' own SDK server over stdio — listing, calls, error results, a server that dies mid-call,
 * list_changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING_STDIO, startEverythingOverHttp, TEST_SERVER_STDIO, type EverythingProcess } from '../../tests/support/mcp-processes';
import { runToolCall } from '../agent/run-tool-call';
import { ToolSet } from '../agent/tool-set';
import type { ToolCall } from '../format/types';
import { mcpServerUrl, streamableHttpTransport } from '../tools/mcp/mcp-http';
import { mcpResultValue } from '../tools/mcp/mcp-result';
import { McpServers } from '../tools/mcp/mcp-servers';
import type { Tool } from '../tools/tool';
import { mcpStdioServer } from './mcp-stdio';

let everything: EverythingProcess | null = null;
let servers: McpServers | null = null;
afterEach(async () => {
  await servers?.close();
  everything?.stop();
  servers = everything = null;
});

const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ kind: 'custom', name, arguments: args }) as ToolCall;

async function run(tools: Tool[], c: ToolCall, timeoutMs = 20_000) {
  return runToolCall(c, { tools: new ToolSet(tools), signal: new AbortController().signal, timeoutMs, maxResultTokens: 400, countTokens: (t) => Math.ceil(t.length / 4), confirm: async () => true, onConfirmationRequest: () => {} });
}

async function everythingOverHttp() {
  everything = await startEverythingOverHttp();
  servers = new McpServers();
  const connection = await servers.add({ label: 'everything', transport: streamableHttpTransport(mcpServerUrl(everything.url)) });
  return { connection, ...(await servers.tools()) };
}

async function overStdio(command: string) {
  servers = new McpServers();
  const connection = await servers.add(mcpStdioServer(command, { stderr: 'ignore' }));
  return { connection, ...(await servers.tools()) };
}

describe('server-everything over Streamable HTTP', () => {
  it('lists its tools under identifier names and runs calls: text, structured content, an image note', async () => {
    const { connection, tools, refused } = await everythingOverHttp();
    expect(connection.state).toBe('connected');
    expect(refused).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get_sum', 'get_structured_content', 'get_tiny_image', 'trigger_long_running_operation']));
    expect(await run(tools, call('get_sum', { a: 2, b: 3 }))).toMatchObject({ content: 'The sum of 2 and 3 is 5.', isError: false });
    const weather = JSON.parse((await run(tools, call('get_structured_content', { location: 'Chicago' }))).content) as Record<string, unknown>;
    expect(Object.keys(weather).sort()).toEqual(['conditions', 'humidity', 'temperature']);
    expect((await run(tools, call('get_tiny_image'))).content).toMatch(/\[image: image\/png, [\d.]+ (bytes|kB), not shown\]/);
  });

  it('a tool the server does not know is an error the model reads', async () => {
    const { connection } = await everythingOverHttp();
    const result = await connection.call('no-such-tool', {}, new AbortController().signal);
    expect(result.isError).toBe(true);
    expect(() => mcpResultValue(result)).toThrow(/no-such-tool/);
  });

  it('a server killed mid-call is an error result, not a hang', async () => {
    const { tools } = await everythingOverHttp();
    const pending = run(tools, call('trigger_long_running_operation', { duration: 30, steps: 3 }), 60_000);
    setTimeout(() => everything!.process.kill('SIGKILL'), 500);
    const outcome = await pending;
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^\{"error": "the MCP server everything disconnected during the call: /);
  });
});

describe('MCP servers over stdio', () => {
  it('server-everything: lists and runs a call', async () => {
    const { connection, tools } = await overStdio(EVERYTHING_STDIO);
    expect(connection.state).toBe('connected');
    expect(await run(tools, call('echo', { message: 'hi there' }))).toMatchObject({ content: 'Echo: hi there', isError: false });
  });

  it('the tests\' server: an error result, list_changed, then a server that dies mid-call', async () => {
    const { tools } = await overStdio(TEST_SERVER_STDIO);
    expect(await run(tools, call('always_fails'))).toMatchObject({ content: '{"error": "the oven is broken"}', isError: true });
    await run(tools, call('add_tool'));
    await expect.poll(async () => (await servers!.tools()).tools.map((t) => t.name)).toContain('special_of_the_day');
    const died = await run(tools, call('die'));
    expect(died.isError).toBe(true);
    expect(died.content).toMatch(/^\{"error": "the MCP server .*mcp-test-server-stdio\.ts\\?"? disconnected during the call: /);
  });

  it('a command that does not start is a failed server with why, and offers no tools', async () => {
    const { connection, tools } = await overStdio('/nonexistent/mcp-server --flag');
    expect(connection.state).toBe('failed');
    expect(connection.lastError).toMatch(/ENOENT/);
    expect(tools).toEqual([]);
  });
});
