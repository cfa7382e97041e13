/**
 * The workload of the `loop` section (and of its test): a brave_search tool loop on the real engine.
 * Each step renders the whole conversation with src/format, generates with a forced continuation
 * (a call `<|python_tag|>brave_search.call(query="…")<|eom_id|>`, or at the last step a short answer
 * and `<|eot_id|>`), appends the assistant message with its emitted ids and a synthetic JSON result,
 * and goes on. A step is one generation: `steps` steps are `steps - 1` calls and the answer.
 *
 * Invariant (checked by the callers): with the prefix cache, the engine prefills exactly the
 * appended ids — the first prompt, then per step the ids the new prompt adds after the previous
 * prompt and the ids the model emitted (its terminator, the ipython turn, the next header).
 */
import type { GenerateRequest } from '../src/engine/contract';
import { renderIds } from '../src/format/render';
import { EOM, EOT, PYTHON_TAG } from '../src/format/special-tokens';
import type { Conversation, Message, TextTokenizer } from '../src/format/types';
import { writeBuiltinCall } from '../src/format/write-call';
import type { Engine } from '../worker/engine';

export interface ToolLoopOptions {
  /** Generations: steps - 1 tool calls, then the answer. At least 1. */
  steps: number;
  /** Each tool result is the smallest synthetic JSON of at least this many tokens. */
  resultTokens: number;
  /**
   * Re-prefill the whole prompt at every step, as a stateless chat API does: before each step
   * (untimed), a one-id request that no prompt extends makes the engine drop its cache.
   */
  reprefill: boolean;
}

export interface ToolLoopRun {
  /** Prompt ids the engine ran through the model, summed over steps (its own stats). */
  prefilled: number;
  /** The first prompt, plus what each later prompt adds to the previous prompt and its emitted ids. */
  appended: number;
  /** Prompt lengths summed over steps: what a stateless API prefills. */
  promptTotal: number;
  finalPromptTokens: number;
  /** Prefill time summed over steps (the engine's stats). */
  prefillMs: number;
  /** Render + generate of every step; the cache-dropping requests are not counted. */
  wallMs: number;
}

/** A fixed date keeps the system block, and so every id, the same from run to run. */
const DATE = '11 August 2026';
/** The cache-dropping request: one ordinary id that no rendered prompt starts with. */
const DROP_CACHE: GenerateRequest = { tokens: [0], maxTokens: 1, sampling: { temperature: 0 } };

export async function runToolLoop(engine: Engine, tokenizer: TextTokenizer, options: ToolLoopOptions): Promise<ToolLoopRun> {
  if (!(options.steps >= 1)) throw new RangeError('steps must be at least 1');
  const messages: Message[] = [{ role: 'user', content: 'What changed between Llama 3 and Llama 3.1, and which context window does each have? Search before answering.' }];
  const conversation = (): Conversation => ({ builtinTools: ['brave_search'], date: DATE, messages });
  const run: ToolLoopRun = { prefilled: 0, appended: 0, promptTotal: 0, finalPromptTokens: 0, prefillMs: 0, wallMs: 0 };
  let transcript: number[] = [];

  await engine.generate(DROP_CACHE); // every run starts from an empty cache
  for (let step = 0; step < options.steps; step++) {
    if (options.reprefill && step > 0) await engine.generate(DROP_CACHE);
    const last = step === options.steps - 1;
    const t0 = performance.now();
    const prompt = renderIds(conversation(), tokenizer);
    if (!startsWith(prompt, transcript)) {
      throw new Error(`tool loop step ${step}: the rendered prompt does not extend the previous prompt and its emitted ids`);
    }
    const script = last ? [...tokenizer.encode(answerText()), EOT] : [PYTHON_TAG, ...tokenizer.encode(callText(step)), EOM];
    const result = await engine.generate({
      tokens: prompt,
      maxTokens: script.length,
      sampling: { seed: step },
      logitsProcessors: [{ type: 'force', tokens: script }],
    });
    run.wallMs += performance.now() - t0;

    const emitted = script.slice(0, -1);
    if (result.stop !== (last ? 'eot' : 'eom') || !sameIds(result.tokens, emitted)) {
      throw new Error(`tool loop step ${step}: the engine did not follow the forced script (stop ${result.stop})`);
    }
    run.prefilled += result.stats.prefilledTokens ?? prompt.length;
    run.prefillMs += result.stats.prefillMs;
    run.appended += prompt.length - transcript.length;
    run.promptTotal += prompt.length;
    run.finalPromptTokens = prompt.length;
    transcript = [...prompt, ...result.tokens];
    if (!last) {
      messages.push(
        { role: 'assistant', content: '', raw: tokenizer.decode(result.tokens), ids: result.tokens, stop: 'eom' },
        { role: 'ipython', content: syntheticSearchResult(step, options.resultTokens, tokenizer) },
      );
    }
  }
  return run;
}

function callText(step: number): string {
  return writeBuiltinCall('brave_search', { query: `llama 3.1 release notes part ${step + 1}` });
}

function answerText(): string {
  return 'Llama 3.1 extends the context window from 8K to 128K tokens and adds built-in tool calling.';
}

const WORDS = (
  'model context window tokens release instruct weights license benchmark multilingual tool calling ' +
  'grouped query attention rope scaling safety evaluation throughput quantization latency vocabulary'
).split(' ');

/**
 * A brave_search-like JSON result of at least `minTokens` tokens, a pure function of its arguments:
 * results are added one by one until the encoded length reaches the target.
 */
export function syntheticSearchResult(step: number, minTokens: number, tokenizer: TextTokenizer): string {
  const results: Array<{ title: string; url: string; description: string }> = [];
  const word = (k: number) => WORDS[(k * 7 + step * 3) % WORDS.length]!;
  let text = '';
  for (let k = 0; ; k++) {
    const words = Array.from({ length: 24 }, (_, j) => word(k * 24 + j)).join(' ');
    results.push({
      title: `Result ${k + 1}: ${word(k)} ${word(k + 1)}`,
      url: `https://example.com/${step + 1}/${word(k)}-${k + 1}`,
      description: `${words}.`,
    });
    text = JSON.stringify({ query: `llama 3.1 release notes part ${step + 1}`, results });
    if (tokenizer.encode(text).length >= minTokens) return text;
  }
}

function startsWith(ids: readonly number[], prefix: readonly number[]): boolean {
  return prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
