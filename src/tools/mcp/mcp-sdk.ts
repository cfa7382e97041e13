/**
 * The parts of @modelcontextprotocol/sdk the page-side client uses, behind one module that is
 * imported dynamically on the first connection: a page or widget without MCP servers never loads it
 * (about 100 KB gzipped in the widget's build).
 */
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
export { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js';
