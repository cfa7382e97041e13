import { describe, expect, it } from 'vitest';
import { examplesFor, MODEL_EXAMPLES, parseModelExamples } from './model-examples';
import { MODELS } from './models';

const model = (id: string) => MODELS.find((m) => m.id === id)!;
const all = () => true;

describe('model examples', () => {
  it('models/examples.json is valid, and every model of the list gets at least one example with all tools on', () => {
    for (const m of MODELS) expect(examplesFor(MODEL_EXAMPLES, m, all).length, m.id).toBeGreaterThan(0);
  });

  it("the micro model is offered only its own world's questions, and only those its enabled tools can answer", () => {
    const micro = model('micro-llama');
    expect(examplesFor(MODEL_EXAMPLES, micro, all)).toEqual(MODEL_EXAMPLES['micro-llama']);
    const searchOnly = examplesFor(MODEL_EXAMPLES, micro, (t) => t === 'brave_search');
    expect(searchOnly.length).toBeGreaterThan(0);
    expect(searchOnly.every((e) => e.tools.every((t) => t === 'brave_search'))).toBe(true);
    // With every tool off, only the questions it answers directly (today's date, small talk).
    const none = examplesFor(MODEL_EXAMPLES, micro, () => false);
    expect(none.map((e) => e.text)).toEqual(["What is today's date?", 'Hello!']);
    expect(none.every((e) => e.tools.length === 0)).toBe(true);
  });

  it('a real model falls back to the defaults; with tools off it still has a question that needs none', () => {
    const llama = model('Llama-3.2-1B-Instruct-q4f32_1-MLC');
    expect(examplesFor(MODEL_EXAMPLES, llama, all)).toEqual(MODEL_EXAMPLES.default);
    expect(examplesFor(MODEL_EXAMPLES, llama, () => false).map((e) => e.tools)).toEqual([[]]);
  });

  const bad: Record<string, { value: unknown; error: RegExp }> = {
    'an unknown key': { value: { 'gpt-4': [] }, error: /examples\.json\.gpt-4: not a model id/ },
    'empty text': { value: { default: [{ text: ' ', tools: [] }] }, error: /default\[0\]\.text/ },
    'a tool that is not built in': { value: { default: [{ text: 'q', tools: ['get_weather'] }] }, error: /^examples\.json\.default\[0\]\.tools\[0\]: expected built-in tool names/ },
    'not an object': { value: [], error: /^examples\.json: expected an object keyed by model id, family or "default"$/ },
    'a list that is not an array': { value: { default: {} }, error: /^examples\.json\.default: expected an array of examples$/ },
    'an example that is not an object': { value: { default: ['q'] }, error: /^examples\.json\.default\[0\]: expected an example \{"text", "tools"\}$/ },
    'an example without its tools': { value: { default: [{ text: 'q' }] }, error: /^examples\.json\.default\[0\]\.tools: expected built-in tool names \(brave_search, wolfram_alpha, code_interpreter\)$/ },
    'an example without its text': { value: { default: [{ tools: [] }] }, error: /^examples\.json\.default\[0\]\.text: expected a non-empty string$/ },
  };
  for (const [name, { value, error }] of Object.entries(bad)) it(`refuses ${name}`, () => expect(() => parseModelExamples(value, MODELS)).toThrow(error));
});
