/**
 * An MCP server written with the official SDK (McpServer) for the tests: a bakery's opening hours
 * (read-only, closed world), an error result, structured content, an image, a tool that ends the
 * server's process mid-call (`die`), one that never answers (`hang`), and one that adds a tool
 * (`add_tool`, so the server sends notifications/tools/list_changed). Served over Streamable HTTP in
 * the test's own process (serveMcpOverHttp) or over stdio as a process (mcp-test-server-stdio.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The bakery's hours: not the widget demo's (07:00–18:00), so an answer from them came from this server. */
export const BAKERY_HOURS: Readonly<Record<string, { open: string; close: string }>> = {
  Monday: { open: '06:30', close: '17:30' },
  Sunday: { open: '08:00', close: '12:00' },
};

export interface TestServerOptions {
  /** What `die` does when called (the stdio process exits). */
  onDie?: () => void;
}

export function createTestMcpServer(o: TestServerOptions = {}): McpServer {
  const server = new McpServer({ name: 'test-bakery', version: '1.0.0' });
  server.registerTool(
    'get_opening_hours',
    {
      description: 'Opening hours of the bakery on a given weekday',
      inputSchema: { day: z.string().describe('Weekday, e.g. Monday') },
      outputSchema: { day: z.string(), open: z.string(), close: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ day }) => {
      const hours = { day, ...(BAKERY_HOURS[day] ?? { open: '07:00', close: '19:00' }) };
      return { content: [{ type: 'text', text: JSON.stringify(hours) }], structuredContent: hours };
    },
  );
  server.registerTool(
    'order_cake',
    { description: 'Orders a cake for pickup', inputSchema: { flavour: z.string() }, annotations: { destructiveHint: true } },
    ({ flavour }) => ({ content: [{ type: 'text', text: `ordered one ${flavour} cake` }] }),
  );
  server.registerTool('always_fails', { description: 'A tool whose every call is an error result', inputSchema: {} }, () => ({
    content: [{ type: 'text', text: 'the oven is broken' }],
    isError: true,
  }));
  server.registerTool(
    'stock',
    {
      description: 'Bread in stock, as structured content',
      inputSchema: {},
      outputSchema: { loaves: z.number(), kinds: z.array(z.string()) },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => {
      const stock = { loaves: 12, kinds: ['rye', 'sourdough'] };
      return { content: [{ type: 'text', text: JSON.stringify(stock) }], structuredContent: stock };
    },
  );
  server.registerTool('logo', { description: 'The bakery logo', inputSchema: {} }, () => ({
    content: [
      { type: 'text', text: 'Here is the logo.' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ],
  }));
  server.registerTool('die', { description: 'Ends the server during the call', inputSchema: {} }, () => {
    o.onDie?.();
    return new Promise(() => {});
  });
  server.registerTool('hang', { description: 'Never answers', inputSchema: {} }, () => new Promise(() => {}));
  server.registerTool('add_tool', { description: 'Adds the tool special_of_the_day', inputSchema: {} }, () => {
    server.registerTool('special_of_the_day', { description: "Today's special", inputSchema: {} }, () => ({ content: [{ type: 'text', text: 'plum cake' }] }));
    return { content: [{ type: 'text', text: 'added special_of_the_day' }] };
  });
  return server;
}

export interface HttpMcpServer {
  url: string;
  /** Headers of every request the server received, in order. */
  headers: IncomingMessage['headers'][];
  /** Drops every open connection at once, as a server that died would. */
  kill(): void;
  close(): Promise<void>;
}

/** What a page on another origin needs to speak Streamable HTTP to the server. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
  'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version',
};

/**
 * Streamable HTTP on 127.0.0.1 (a random port), one McpServer per session, at `/mcp`; `cors`: pages
 * of any origin may call it (the browser tests).
 */
export async function serveMcpOverHttp(
  make: (kill: () => void) => McpServer = (kill) => createTestMcpServer({ onDie: kill }),
  o: { cors?: boolean } = {},
): Promise<HttpMcpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Set<Socket>();
  const headers: IncomingMessage['headers'][] = [];
  const http = createServer((req, res) => void handle(req, res));
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const kill = () => {
    for (const s of sockets) s.destroy();
    http.close();
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (o.cors) for (const [k, v] of Object.entries(CORS_HEADERS)) res.setHeader(k, v);
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    headers.push(req.headers);
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      const fresh = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sid) => void sessions.set(sid, fresh) });
      transport = fresh;
      await make(kill).connect(fresh);
    }
    await transport.handleRequest(req, res);
  }
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    kill,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      kill();
    },
  };
}
