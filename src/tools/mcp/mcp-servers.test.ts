/** MCP tools against a real server written with the SDK (tests/support/mcp-test-server.ts), over Streamable HTTP in this process. */
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../tests/support/mcp-processes';
import { serveMcpOverHttp, type HttpMcpServer } from '../../../tests/support/mcp-test-server';
import { customCall, scriptedEngine } from '../../../tests/support/scripted-engine';
import { collect, ofType } from '../../agent/collect-events';
import { runAgent } from '../../agent/run-agent';
import { runToolCall } from '../../agent/run-tool-call';
import { loadTokenizer } from '../../format/tokenizer/load-node';
import { ToolSet } from '../../agent/tool-set';
import type { ToolCall } from '../../format/types';
import type { Tool } from '../tool';
import { mcpServerUrl, mcpUrlLabel, streamableHttpTransport } from './mcp-http';
import { McpServers } from './mcp-servers';

const tokenizer = loadTokenizer();
let server: HttpMcpServer | null = null;
let servers: McpServers | null = null;
afterEach(async () => {
  await servers?.close();
  await server?.close();
  servers = server = null;
});

async function connected(o: { prefix?: string; trustReadOnly?: boolean; token?: string; timeoutMs?: number } = {}) {
  server ??= await serveMcpOverHttp();
  servers = new McpServers();
  const url = mcpServerUrl(server.url);
  const connection = await servers.add({ label: mcpUrlLabel(url), transport: streamableHttpTransport(url, o.token), ...o });
  return { connection, servers };
}

const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ kind: 'custom', name, arguments: args }) as ToolCall;

/** One call as the loop runs it (confirmed), the ipython content it writes. */
async function run(tools: Tool[], c: ToolCall, timeoutMs = 5000) {
  return runToolCall(c, { tools: new ToolSet(tools), signal: new AbortController().signal, timeoutMs, maxResultTokens: 200, countTokens: (t) => Math.ceil(t.length / 4), confirm: async () => true, onConfirmationRequest: () => {} });
}

describe('MCP tools from a server written with the SDK, over Streamable HTTP', () => {
  it('lists the tools as custom tools whose parameters are their input schemas', async () => {
    const { connection, servers } = await connected();
    expect(connection.state).toBe('connected');
    const { tools, refused } = await servers.tools();
    expect(refused).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['get_opening_hours', 'order_cake', 'always_fails', 'stock', 'logo', 'die', 'hang', 'add_tool']);
    const hours = tools.find((t) => t.name === 'get_opening_hours')!;
    expect(hours.description).toBe('Opening hours of the bakery on a given weekday');
    expect(hours.parameters).toMatchObject({ type: 'object', properties: { day: { type: 'string', description: 'Weekday, e.g. Monday' } }, required: ['day'] });
  });

  it('runs a call on the server and reads its text, its structured content and a note for an image', async () => {
    const { tools } = await (await connected()).servers.tools();
    expect(await run(tools, call('get_opening_hours', { day: 'Monday' }))).toEqual({ content: '{"day": "Monday", "open": "06:30", "close": "17:30"}', isError: false, source: `MCP: ${mcpUrlLabel(new URL(server!.url))}` });
    expect((await run(tools, call('stock'))).content).toBe('{"loaves": 12, "kinds": ["rye", "sourdough"]}');
    expect((await run(tools, call('logo'))).content).toBe('Here is the logo.\n\n[image: image/png, 8 bytes, not shown]');
  });

  it('gives an error result as an error the model reads, and refuses bad arguments before the server sees them', async () => {
    const { tools } = await (await connected()).servers.tools();
    expect(await run(tools, call('always_fails'))).toMatchObject({ content: '{"error": "the oven is broken"}', isError: true });
    const before = server!.headers.length;
    expect(await run(tools, call('get_opening_hours', { day: 3 }))).toMatchObject({ content: expect.stringContaining('invalid arguments for get_opening_hours'), isError: true });
    expect(server!.headers.length).toBe(before);
  });

  it('asks before a destructive tool; a read-only closed-world one runs unasked only when allowed', async () => {
    const strict = await (await connected()).servers.tools();
    expect(strict.tools.every((t) => t.needsConfirmation)).toBe(true);
    await servers!.close();
    const trusting = await (await connected({ trustReadOnly: true })).servers.tools();
    const asks = Object.fromEntries(trusting.tools.map((t) => [t.name, t.needsConfirmation]));
    expect(asks).toMatchObject({ get_opening_hours: false, stock: false, order_cake: true, always_fails: true });
    const declined = await runToolCall(call('order_cake', { flavour: 'plum' }), { tools: new ToolSet(trusting.tools), signal: new AbortController().signal, timeoutMs: 5000, maxResultTokens: 200, countTokens: (t) => t.length, confirm: async () => false, onConfirmationRequest: () => {} });
    expect(declined).toMatchObject({ content: '{"error": "the user declined to run order_cake"}', isError: true });
  });

  it('a server that dies mid-call is an error result, and the next call says it is not connected', async () => {
    const { tools } = await (await connected()).servers.tools();
    const died = await run(tools, call('die'));
    expect(died.isError).toBe(true);
    expect(died.content).toMatch(/^\{"error": "the MCP server http:\/\/127\.0\.0\.1:\d+\/mcp disconnected during the call: fetch failed/);
    const next = await run(tools, call('get_opening_hours', { day: 'Monday' }));
    expect(next.isError).toBe(true);
    expect(next.content).toMatch(/^\{"error": "the MCP server http:\/\/127\.0\.0\.1:\d+\/mcp is not connected: fetch failed \(ECONNREFUSED\)/);
  });

  it('a call that outlasts the tool timeout is the loop\'s timeout error', async () => {
    const { tools } = await (await connected()).servers.tools();
    expect(await run(tools, call('hang'), 300)).toEqual({ content: '{"error": "timeout after 0.3s"}', isError: true });
  });

  it('refreshes the tool list on list_changed', async () => {
    const { servers } = await connected();
    const { tools } = await servers.tools();
    await run(tools, call('add_tool'));
    await expect.poll(async () => (await servers.tools()).tools.map((t) => t.name)).toContain('special_of_the_day');
  });

  it('a tool a server adds during a run (list_changed) can be called at the run\'s next step', async () => {
    const { servers } = await connected({ trustReadOnly: true });
    const engine = scriptedEngine(tokenizer, [customCall('add_tool'), customCall('special_of_the_day'), { text: 'Plum cake.', stop: 'eot' }]);
    const current = async () => (await servers.tools()).tools;
    const events = await collect(runAgent({ engine, tokenizer, tools: await current(), refreshTools: current, conversation: { messages: [{ role: 'user', content: 'special?' }] }, confirm: async () => true }));
    expect(ofType(events, 'tool-result').map((r) => [r.name, r.content, r.isError])).toEqual([
      ['add_tool', 'added special_of_the_day', false],
      ['special_of_the_day', 'plum cake', false],
    ]);
    expect(tokenizer.decode(engine.requests[0]!.tokens)).not.toContain('"name": "special_of_the_day"');
    expect(tokenizer.decode(engine.requests[1]!.tokens)).toContain('"name": "special_of_the_day"');
    expect(engine.requests[1]!.constraint).toMatchObject({ tools: expect.arrayContaining([expect.objectContaining({ name: 'special_of_the_day' })]) });
  });

  it('a server that cannot be reached is kept as failed with why, and offers no tools', async () => {
    servers = new McpServers();
    const url = mcpServerUrl(`http://127.0.0.1:${await freePort()}/mcp`);
    const connection = await servers.add({ label: mcpUrlLabel(url), transport: streamableHttpTransport(url) });
    expect(connection.state).toBe('failed');
    expect(connection.lastError).toBe('fetch failed (ECONNREFUSED)');
    expect((await servers.tools()).tools).toEqual([]);
  });

  it('refuses a name another tool holds, saying whose, and a prefix makes room', async () => {
    server = await serveMcpOverHttp();
    servers = new McpServers();
    const url = mcpServerUrl(server.url);
    await servers.add({ label: 'first', transport: streamableHttpTransport(url) });
    await servers.add({ label: 'second', transport: streamableHttpTransport(url) });
    await servers.add({ label: 'third', transport: streamableHttpTransport(url), prefix: 'bakery' });
    const { tools, refused } = await servers.tools(['stock']);
    expect(refused).toContainEqual({ server: 'first', name: 'stock', reason: 'the name "stock" is taken by another tool of this agent: give first a prefix' });
    expect(refused).toContainEqual({ server: 'second', name: 'get_opening_hours', reason: 'the name "get_opening_hours" is taken by the MCP server first: give second a prefix' });
    expect(tools.map((t) => t.name)).toContain('bakery_get_opening_hours');
    expect(new ToolSet(tools).size).toBe(tools.length);
  });

  it('sends a bearer token as the Authorization header and never names it', async () => {
    const { connection } = await connected({ token: 's3cret-token' });
    expect(server!.headers.every((h) => h.authorization === 'Bearer s3cret-token')).toBe(true);
    expect(JSON.stringify(connection.spec.label)).not.toContain('s3cret');
  });

  it('refuses a URL that is not http(s) or holds credentials, with a clear error', () => {
    expect(() => mcpServerUrl('ftp://example.com/mcp')).toThrow('an MCP server URL must be http or https, got ftp:');
    expect(() => mcpServerUrl('https://u:p@example.com/mcp')).toThrow('must not hold a user name or password');
    expect(() => mcpServerUrl('/mcp')).toThrow('an MCP server URL must be absolute');
    expect(mcpUrlLabel(mcpServerUrl('https://example.com/mcp?key=abc'))).toBe('https://example.com/mcp');
  });
});
