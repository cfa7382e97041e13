/**
 * Section `grammar`: what constrained decoding costs. The mask per decoded token (XGrammar's bitmask
 * and its application to Llama 3.1's 128,256 logits) along a custom call of three tools and along a
 * JSON-schema reply; the compile time of a grammar not seen before; the share of a constrained call's
 * ids that jump-forward feeds without sampling; and the micro model's decode speed on the same call,
 * constrained vs free, in interleaved rounds on onnxruntime-node.
 */
import type { Constraint, GenerateRequest } from '../src/engine/contract';
import { renderIds } from '../src/format/render';
import { EOT } from '../src/format/special-tokens';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { toolSchemaForPrompt, defineCustomTool } from '../src/tools/custom-tool';
import { WIDGET_DEMO_TOOL } from '../scripts/micro-llama/widget-demo-tool';
import { createNodeEngine } from '../worker/create-node-engine';
import { openConstraint } from '../worker/grammar/constraint-session';
import { nodeGrammars } from '../worker/grammar/node-grammars';
import { interleave, median, round } from './measure';
import type { BenchSection } from './section';

const TOOLS = [
  { name: 'get_opening_hours', parameters: WIDGET_DEMO_TOOL.parameters },
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['city'] } },
  { name: 'convert', parameters: { type: 'object', properties: { amount: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } }, required: ['amount', 'from', 'to'] } },
];
const CALL = '{"name": "get_weather", "parameters": {"city": "Reykjavik", "unit": "celsius"}}';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, rating: { type: 'integer', minimum: 1, maximum: 5 }, open: { type: 'boolean' } },
  required: ['title', 'tags', 'rating', 'open'],
  additionalProperties: false,
};
const REPLY = '{"title": "Bakery on the corner", "tags": ["bread", "coffee", "cake"], "rating": 4, "open": true}';
const ROUNDS = 7;

export const grammarSection: BenchSection = {
  name: 'grammar',
  summary: 'constrained decoding: mask µs per token, compile ms, jump-forward share, micro model constrained vs free decode',
  async run() {
    const tokenizer = loadTokenizer();
    const grammars = nodeGrammars();
    await grammars.start();

    // The mask along a whole call and a whole reply, token by token, as generation applies it.
    const maskUs: number[] = [];
    const logits = new Float32Array(128_256);
    const walk = async (constraint: Constraint, text: string) => {
      const session = await openConstraint(constraint, grammars);
      for (const id of [...tokenizer.encode(text), EOT]) {
        const t0 = performance.now();
        await session.prepare();
        session.mask(logits);
        maskUs.push((performance.now() - t0) * 1000);
        if (logits[id] === -Infinity) throw new Error(`the constraint refused id ${id} of its own example`);
        logits.fill(0);
        session.accept(id);
      }
      session.dispose();
    };
    for (let r = 0; r < ROUNDS; r++) {
      await walk({ type: 'tool_calls', mode: 'required', tools: TOOLS, builtins: ['brave_search', 'wolfram_alpha'] }, CALL);
      await walk({ type: 'json_schema', schema: SCHEMA }, REPLY);
    }
    maskUs.sort((a, b) => a - b);

    // A grammar not compiled before (a new description each time, so the cache cannot answer).
    const compileMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      await grammars.compile({ kind: 'json_schema', schema: { ...SCHEMA, description: `bench ${Date.now()} ${i}` }, strict: true });
      compileMs.push(performance.now() - t0);
    }

    // The micro model writing the widget's call, free and constrained to it.
    const engine = createNodeEngine();
    await engine.load('micro-llama');
    const tool = defineCustomTool(WIDGET_DEMO_TOOL);
    const prompt = renderIds(
      { tools: [toolSchemaForPrompt(tool)], date: '11 August 2026', messages: [{ role: 'user', content: 'When are you open on Monday?' }], addGenerationPrompt: true },
      tokenizer,
    );
    const constraint: Constraint = { type: 'tool_calls', mode: 'auto', tools: [{ name: tool.name, parameters: tool.parameters }], builtins: [] };
    const request = (constrained: boolean): GenerateRequest => ({ tokens: prompt, maxTokens: 64, sampling: { temperature: 0 }, ...(constrained ? { constraint } : {}) });
    const free = await engine.generate(request(false));
    const bound = await engine.generate(request(true));
    const text = tokenizer.decode(bound.tokens);
    if (text !== tokenizer.decode(free.tokens) || !text.startsWith('{"name": "get_opening_hours"')) {
      throw new Error(`the constrained call differs from the free one: ${JSON.stringify(text)} vs ${JSON.stringify(tokenizer.decode(free.tokens))}`);
    }
    const rate = (constrained: boolean) => async () => {
      // A new conversation each round (the cache's prefix would otherwise hide the prefill).
      await engine.generate({ tokens: [128000], maxTokens: 1 });
      const r = await engine.generate(request(constrained));
      return (r.stats.prefillMs + r.stats.decodeMs) / r.stats.decodedTokens;
    };
    const msPerToken = await interleave(ROUNDS, { free: rate(false), constrained: rate(true) });
    await engine.unload();

    return {
      maskUsMedian: round(median(maskUs)),
      maskUsP99: round(maskUs[Math.min(maskUs.length - 1, Math.floor(maskUs.length * 0.99))]!),
      compileMsMedian: round(median(compileMs)),
      jumpForwardShare: round((bound.stats.forwardedTokens ?? 0) / bound.stats.decodedTokens),
      constrainedVsFreeDecode: round(median(msPerToken.free) / median(msPerToken.constrained)),
      callTokens: bound.stats.decodedTokens,
    };
  },
};
