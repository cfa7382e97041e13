import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { renderPrompt } from './render';

const OFFICIAL_TEMPLATE = readFileSync(new URL('../../models/llama-3.1-8b-instruct.chat-template.jinja', import.meta.url), 'utf8');

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_current_conditions',
      description: 'Get the current weather conditions for a specific location, e.g. "Zürich"',
      parameters: {
        type: 'object',
        properties: {
          location: { type: 'string', description: 'The city and state, e.g., San Francisco, CA' },
          unit: { type: 'string', enum: ['Celsius', 'Fahrenheit'], description: 'The temperature unit' },
          days: { type: 'array', items: { type: 'integer' } },
          extra: { type: 'object', properties: {} },
        },
        required: ['location', 'unit'],
      },
    },
  },
  { type: 'function', function: { name: 'get_time', description: 'Time now', parameters: { type: 'object', properties: {} } } },
];

function firstUserTurn(prompt: string): string {
  const start = prompt.indexOf('<|start_header_id|>user<|end_header_id|>');
  return prompt.slice(start, prompt.indexOf('<|eot_id|>', start) + '<|eot_id|>'.length);
}

describe('custom tools in the first user turn', () => {
  it("matches the official Llama-3.1-8B-Instruct chat template's user turn", () => {
    const question = 'What is the weather in Paris today?';
    const official = new Template(OFFICIAL_TEMPLATE).render({
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: question },
      ],
      tools: TOOLS,
      bos_token: '<|begin_of_text|>',
      date_string: '11 August 2026',
      add_generation_prompt: true,
    });
    const ours = renderPrompt({
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: question },
      ],
      tools: TOOLS,
      date: '11 August 2026',
    });
    const turn = firstUserTurn(ours);
    expect(turn).toContain('"name": "get_current_conditions"');
    expect(turn).toBe(firstUserTurn(official));
    // Each schema is 4-space-indented JSON followed by a blank line, then the question.
    expect(turn).toContain('\n        "name": "get_time",\n');
    expect(turn.endsWith(`}\n\n${question}<|eot_id|>`)).toBe(true);
  });

  it('the system block keeps FORMAT.md layout (no trailing blank line without a caller message)', () => {
    const ours = renderPrompt({ messages: [{ role: 'user', content: 'Hi' }], tools: TOOLS, date: '11 August 2026' });
    expect(ours).toContain(
      '<|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\n\nCutting Knowledge Date: December 2023\nToday Date: 11 August 2026<|eot_id|>',
    );
  });

  it('only the first user turn carries the schemas', () => {
    const ours = renderPrompt({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'two' },
      ],
      tools: TOOLS,
      date: '11 August 2026',
    });
    expect(ours.split('Given the following functions').length).toBe(2);
    expect(ours).toContain('<|start_header_id|>user<|end_header_id|>\n\ntwo<|eot_id|>');
  });
});
