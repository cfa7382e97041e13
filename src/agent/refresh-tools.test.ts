/** A run whose tools change between steps (an MCP list_changed, a WebMCP tool unregistered): runAgent's refreshTools. */
import { describe, expect, it } from 'vitest';
import { customCall, scriptedEngine } from '../../tests/support/scripted-engine';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { defineCustomTool } from '../tools/custom-tool';
import type { Tool } from '../tools/tool';
import { collect, ofType } from './collect-events';
import { runAgent } from './run-agent';
import { ToolSet } from './tool-set';

const tokenizer = loadTokenizer();
const tool = (name: string, value: string): Tool =>
  defineCustomTool({ name, description: `Says ${value}`, parameters: { type: 'object', properties: {} }, readOnly: true, execute: () => value });

const callOf = (name: string) => customCall(name);

describe('tools refreshed between steps', () => {
  it('offers a tool added during the run at the next step: in the prompt, in the constraint, and callable', async () => {
    const first = tool('first_tool', 'one');
    const added = tool('added_tool', 'two');
    let current: Tool[] = [first];
    const engine = scriptedEngine(tokenizer, [callOf('first_tool'), callOf('added_tool'), { text: 'done', stop: 'eot' }]);
    const events = await collect(
      runAgent({
        engine, tokenizer, tools: current, conversation: { messages: [{ role: 'user', content: 'go' }] },
        refreshTools: async () => (current = [first, added]),
      }),
    );
    const results = ofType(events, 'tool-result').map((r) => [r.name, r.content, r.isError]);
    expect(results).toEqual([['first_tool', 'one', false], ['added_tool', 'two', false]]);
    const prompts = engine.requests.map((r) => tokenizer.decode(r.tokens));
    expect(prompts[0]).not.toContain('added_tool');
    expect(prompts[1]).toContain('"name": "added_tool"');
    expect(engine.requests[1]!.constraint).toMatchObject({ tools: [{ name: 'first_tool' }, { name: 'added_tool' }] });
    // The step's prompt is the transcript rendered again with the new block, the first step's output kept as emitted.
    expect(prompts[1]).toContain('{"name": "first_tool", "parameters": {}}<|eom_id|>');
  });

  it('a tool removed during the run is gone at the next step: a call to it is an unknown tool', async () => {
    const kept = tool('kept_tool', 'k');
    const removed = tool('removed_tool', 'r');
    const engine = scriptedEngine(tokenizer, [callOf('kept_tool'), callOf('removed_tool'), { text: 'done', stop: 'eot' }]);
    const events = await collect(
      // The conversation carries the run's tool block itself, as the chat session passes it.
      runAgent({ engine, tokenizer, tools: [kept, removed], conversation: { ...new ToolSet([kept, removed]).renderOptions(), date: '2026-12-06', messages: [{ role: 'user', content: 'go' }] }, constrainCalls: false, refreshTools: async () => [kept] }),
    );
    const results = ofType(events, 'tool-result').map((r) => [r.name, r.isError]);
    expect(results).toEqual([['kept_tool', false], ['removed_tool', true]]);
    expect(ofType(events, 'tool-result')[1]!.content).toContain('unknown tool \\"removed_tool\\"');
    const [first, second] = engine.requests.map((r) => tokenizer.decode(r.tokens));
    expect(first).toContain('"name": "removed_tool"');
    expect(second).not.toContain('"name": "removed_tool"');
    expect(second).toContain('Today Date: 06 December 2026');
  });
});
