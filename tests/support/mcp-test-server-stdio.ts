/** The tests' MCP server (mcp-test-server.ts) over stdio, as a process: `die` exits it. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createTestMcpServer } from './mcp-test-server';

await createTestMcpServer({ onDie: () => process.exit(3) }).connect(new StdioServerTransport());
