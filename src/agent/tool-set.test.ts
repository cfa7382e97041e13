import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../format/types';
import { defineCustomTool } from '../tools/custom-tool';
import { runToolCall } from './run-tool-call';
import { ToolSet } from './tool-set';

/** A host tool written the way the review's was: it merges the arguments with Object.assign. */
function mergingTool(calls: unknown[]) {
  return defineCustomTool({
    name: 'set_profile',
    description: 'Updates the profile',
    parameters: { type: 'object' },
    readOnly: true,
    execute: (args) => {
      calls.push(args);
      const profile: Record<string, unknown> = Object.assign({}, args);
      return { isAdmin: profile.isAdmin === true };
    },
  });
}

const options = (tools: ToolSet) => ({
  tools,
  signal: new AbortController().signal,
  timeoutMs: 5_000,
  maxResultTokens: 1_000,
  countTokens: (text: string) => text.length,
  onConfirmationRequest: () => {},
});

describe('a call whose arguments carry __proto__, constructor or prototype', () => {
  // A call that did not come through the parser (structured, replayed) may still carry one.
  const smuggled: Record<string, string> = {
    '__proto__ at the top': '{"__proto__": {"isAdmin": true}}',
    'constructor.prototype': '{"constructor": {"prototype": {"isAdmin": true}}}',
    'deep in the data': '{"profile": {"tags": [{"__proto__": {"isAdmin": true}}]}}',
  };
  for (const [name, args] of Object.entries(smuggled)) {
    it(`${name}: the tool never runs and the model reads why`, async () => {
      const calls: unknown[] = [];
      const call: ToolCall = { kind: 'custom', name: 'set_profile', arguments: JSON.parse(args) as Record<string, unknown> };
      const result = await runToolCall(call, options(new ToolSet([mergingTool(calls)])));
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/invalid arguments for set_profile: argument key \\?".*(__proto__|constructor)\\?" is not allowed/);
      expect(calls).toEqual([]);
    });
  }

  it('the tool itself refuses them too, whoever calls it', async () => {
    const calls: unknown[] = [];
    const tool = mergingTool(calls);
    await expect(tool.execute(JSON.parse('{"__proto__": {"isAdmin": true}}') as Record<string, unknown>, { signal: new AbortController().signal })).rejects.toThrow(
      /invalid arguments for set_profile: argument key "__proto__" is not allowed/,
    );
    expect(calls).toEqual([]);
  });

  it('ordinary arguments still reach the tool, and the next call works', async () => {
    const calls: unknown[] = [];
    const tools = new ToolSet([mergingTool(calls)]);
    await runToolCall({ kind: 'custom', name: 'set_profile', arguments: JSON.parse('{"__proto__": {"isAdmin": true}}') as Record<string, unknown> }, options(tools));
    const result = await runToolCall({ kind: 'custom', name: 'set_profile', arguments: { isAdmin: false, name: 'Ada' } }, options(tools));
    expect(result).toEqual({ content: '{"isAdmin": false}', isError: false });
    expect(calls).toEqual([{ isAdmin: false, name: 'Ada' }]);
  });
});
