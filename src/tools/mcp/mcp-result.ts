/**
 * An MCP tools/call result → the value of the ipython turn (tool-result.ts then writes and cuts it).
 *
 * - `isError`: thrown as a ToolError whose message is the result's text, so the model reads
 *   `{"error": "<the server's text>"}`;
 * - `structuredContent`: that object (written as JSON); the text blocks beside it are the server's own
 *   serialization of the same data (the spec asks servers to send both) and are left out;
 * - otherwise the text blocks, joined by a blank line;
 * - images, audio and resources: a short note each (kind, MIME type, URI, size) the model can read,
 *   never the bytes.
 */
import { ToolError } from '../tool';
import { MCP_TEXTS } from './mcp-texts';

/** The parts of a CallToolResult this module reads (the SDK's type, loosened to what a server may send). */
export interface McpCallResult {
  content?: readonly McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export type McpContentBlock = { type: string } & Record<string, unknown>;

export function mcpResultValue(result: McpCallResult): unknown {
  const blocks = result.content ?? [];
  const texts = blocks.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
  const notes = blocks.flatMap((b) => (b.type === 'text' ? [] : [contentNote(b)]));
  if (result.isError === true) {
    const message = [...texts, ...notes].join('\n\n').trim();
    throw new ToolError(message || MCP_TEXTS.errorWithoutText());
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) {
    return notes.length > 0 ? { ...result.structuredContent, notes } : result.structuredContent;
  }
  return [...texts, ...notes].join('\n\n');
}

/** `[image: image/png, 1.2 kB, not shown]`, `[resource: file:///a.txt (text/plain), 120 characters, not shown]`. */
export function contentNote(block: McpContentBlock): string {
  const mime = typeof block.mimeType === 'string' ? block.mimeType : 'unknown type';
  switch (block.type) {
    case 'image':
    case 'audio':
      return `[${block.type}: ${mime}, ${sizeOf(block.data)}, not shown]`;
    case 'resource_link':
      return `[resource link: ${str(block.name) ?? str(block.uri) ?? 'unnamed'}${str(block.uri) ? ` <${str(block.uri)}>` : ''}${block.mimeType ? ` (${mime})` : ''}]`;
    case 'resource': {
      const r = (block.resource ?? {}) as Record<string, unknown>;
      const rMime = typeof r.mimeType === 'string' ? r.mimeType : 'unknown type';
      const size = typeof r.text === 'string' ? `${r.text.length} characters` : sizeOf(r.blob);
      return `[resource: ${str(r.uri) ?? 'no URI'} (${rMime}), ${size}, not shown]`;
    }
    default:
      return `[${block.type} content, not shown]`;
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The decoded size of base64 data, in bytes or kB. */
function sizeOf(base64: unknown): string {
  if (typeof base64 !== 'string') return 'no data';
  const bytes = Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
  return bytes < 1000 ? `${bytes} bytes` : `${(bytes / 1000).toFixed(1)} kB`;
}
