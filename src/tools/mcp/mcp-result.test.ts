import { describe, expect, it } from 'vitest';
import { ToolError } from '../tool';
import { contentNote, mcpResultValue } from './mcp-result';
import { mcpNeedsConfirmation, mcpTool, modelToolName } from './mcp-tool';

describe('an MCP call result as the ipython turn reads it', () => {
  it('gives text blocks as text, joined by a blank line', () => {
    expect(mcpResultValue({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] })).toBe('a\n\nb');
  });

  it('gives structuredContent as the object, without the text that serializes it', () => {
    expect(mcpResultValue({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } })).toEqual({ n: 1 });
  });

  it('throws an error result as a ToolError with the server\'s text', () => {
    expect(() => mcpResultValue({ content: [{ type: 'text', text: 'the oven is broken' }], isError: true })).toThrow(new ToolError('the oven is broken'));
    expect(() => mcpResultValue({ content: [], isError: true })).toThrow('the tool reported an error without saying why');
  });

  it('writes images, audio and resources as short notes, never their bytes', () => {
    expect(contentNote({ type: 'image', data: 'AAAA', mimeType: 'image/png' })).toBe('[image: image/png, 3 bytes, not shown]');
    expect(contentNote({ type: 'audio', data: 'A'.repeat(4000), mimeType: 'audio/wav' })).toBe('[audio: audio/wav, 3.0 kB, not shown]');
    expect(contentNote({ type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' })).toBe('[resource link: a.txt <file:///a.txt> (text/plain)]');
    expect(contentNote({ type: 'resource', resource: { uri: 'file:///b.md', mimeType: 'text/markdown', text: 'hello' } })).toBe('[resource: file:///b.md (text/markdown), 5 characters, not shown]');
    expect(mcpResultValue({ content: [{ type: 'text', text: 'logo:' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] })).toBe('logo:\n\n[image: image/png, 3 bytes, not shown]');
  });
});

describe('MCP tool names and confirmation', () => {
  it('writes a name as an identifier, after the prefix when there is one', () => {
    expect(modelToolName('get-sum')).toBe('get_sum');
    expect(modelToolName('get.sum', 'everything')).toBe('everything_get_sum');
    expect(modelToolName('3d-print')).toBe('_3d_print');
  });

  it('asks unless read-only tools are allowed and the tool is read-only, closed-world and not destructive', () => {
    const readOnlyClosed = { readOnlyHint: true, openWorldHint: false };
    expect(mcpNeedsConfirmation(readOnlyClosed, true)).toBe(false);
    expect(mcpNeedsConfirmation(readOnlyClosed, false)).toBe(true);
    expect(mcpNeedsConfirmation({ readOnlyHint: true }, true)).toBe(true); // openWorldHint defaults to true
    expect(mcpNeedsConfirmation({ ...readOnlyClosed, destructiveHint: true }, true)).toBe(true);
    expect(mcpNeedsConfirmation(undefined, true)).toBe(true);
  });
});

describe('an MCP tool definition', () => {
  const call = async () => ({ content: [] });
  it('drops a draft-07 $schema (the default dialect) from the parameters and keeps any other', () => {
    const draft7 = mcpTool({ name: 't', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} } }, { serverLabel: 's', call });
    expect(draft7.parameters).toEqual({ type: 'object', properties: {} });
    const later = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} };
    expect(mcpTool({ name: 't', inputSchema: later }, { serverLabel: 's', call }).parameters).toEqual(later);
  });
});
