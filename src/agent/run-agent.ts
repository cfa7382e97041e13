/**
 * The agent loop (shared/FORMAT.md "The loop"): render → generate until a stop id → parse → run the
 * calls in order, one ipython turn each → continue in the same assistant turn. The transcript keeps
 * what the model emitted (text and ids) and is never rebuilt from parsed calls, so every step's
 * prompt extends the previous one and the engine prefills only what was appended.
 */
import { LOOP_TEXTS } from '../tools/failure-texts';
import { callbackStream } from '../engine/callback-stream';
import type { EngineLike, GenerateRequest, GenerateResult, LoadedModelInfo, LogitsProcessorSpec, SamplingParams, ToolCallConstraint } from '../engine/contract';
import { EngineError, isAbortError, serializeError } from '../engine/errors';
import { parseEmitted } from '../format/parse';
import { renderSegments, segmentsToIds, segmentsToText } from '../format/render';
import { PYTHON_TAG } from '../format/special-tokens';
import { hasSystemOptions } from '../format/system-block';
import { StreamDecoder } from '../format/tokenizer/stream-decoder';
import type { Conversation, Message, TextTokenizer, ToolCall } from '../format/types';
import type { Tool } from '../tools/tool';
import type { AgentEvent, FinishReason } from './events';
import { DEFAULT_REPETITION, RepetitionGuard, type RepetitionOptions } from './repetition-guard';
import { runToolCall } from './run-tool-call';
import { stepTokenCap } from './step-cap';
import { ToolSet } from './tool-set';

export interface RunAgentOptions {
  engine: EngineLike;
  /** The page's tokenizer: prompts are rendered to ids and results counted and decoded here, not in the engine. */
  tokenizer: TextTokenizer;
  tools?: readonly Tool[];
  /** The conversation so far (ending with the user's turn, or with tool results to continue from). */
  conversation: Conversation;
  /** Generation steps at most (default 8). */
  maxSteps?: number;
  /** Per tool call (default 10 s). */
  toolTimeoutMs?: number;
  /** The whole run (default 5 minutes). */
  timeBudgetMs?: number;
  signal?: AbortSignal;
  sampling?: SamplingParams;
  /** Tokens per step (default 1024; never more than a quarter of the model's context, see step-cap.ts). */
  maxTokensPerStep?: number;
  /** A step whose tail repeats one block of ids is stopped and the run ends with `repetition` (default on; false: off). */
  repetition?: RepetitionOptions | false;
  /** Tool results are cut to this many tokens, with a marker (default 1500). */
  maxResultTokens?: number;
  /** Asked before running a tool that needs confirmation; resolve true to run it. */
  confirm?: (call: ToolCall) => Promise<boolean>;
  /** The loaded model: tool mode is refused for checkpoints not trained on the tool format. */
  model?: LoadedModelInfo | null;
  /** Per-step logits processors (tests force a scripted continuation this way). */
  logitsProcessors?: (step: number) => LogitsProcessorSpec[] | undefined;
  /** Constrain calls to the offered tools and their schemas (default true; false: the model writes calls freely). */
  constrainCalls?: boolean;
  /** Replay: a recorded result for a call, used instead of running the tool. */
  recordedResult?: (call: ToolCall, step: number, index: number) => string | undefined;
}

const DEFAULTS = { maxSteps: 8, toolTimeoutMs: 10_000, timeBudgetMs: 300_000, maxTokensPerStep: 1024, maxResultTokens: 1500 };

const NOTHING_CALLABLE = { error: LOOP_TEXTS.nothingCallable() };

/** Runs the loop; iterate the events. Never throws: failures arrive as an `error` event, then `finish`. */
export function runAgent(options: RunAgentOptions): AsyncIterable<AgentEvent> {
  const stream = callbackStream<AgentEvent>();
  void agentLoop(options, stream.push).then(stream.end, stream.fail);
  return stream.iterable;
}

async function agentLoop(o: RunAgentOptions, emit: (e: AgentEvent) => void): Promise<void> {
  const cfg = { ...DEFAULTS, ...definedOnly(o) };
  const tools = new ToolSet(o.tools ?? []);
  const messages: Message[] = [...o.conversation.messages];
  // Pinned once: a system block that changed mid-run (midnight) would invalidate the KV cache.
  const date = o.conversation.date ?? (tools.size > 0 || hasSystemOptions(o.conversation) ? new Date() : undefined);
  const conversation = (): Conversation => ({ ...o.conversation, ...toolOptions(tools, o.conversation), ...(date ? { date } : {}), messages });
  const budget = deadline(cfg.timeBudgetMs);
  const signal = o.signal ? AbortSignal.any([o.signal, budget.signal]) : budget.signal;
  const endReason = (): FinishReason => (o.signal?.aborted ? 'aborted' : 'time_budget');
  let answer = '';
  let step = 0;
  let previousWasEmptyEom = false;

  const finish = (reason: FinishReason) => {
    budget.clear();
    emit({ type: 'finish', reason, text: answer, messages: [...messages], steps: step });
  };

  try {
    if (tools.size > 0 && o.model && !o.model.toolCalling) {
      throw new EngineError(
        'tool_mode_unsupported',
        `${o.model.modelId} was not trained on Llama 3.1's tool format (eom_id, python_tag, ipython): use a Llama 3.1 or 3.2 model for tools, or turn tools off`,
      );
    }
    for (const tool of tools.all()) void tool.warm?.().catch(() => {});

    const maxTokens = stepTokenCap(cfg.maxTokensPerStep, o.model?.contextWindow);
    // Calls can only name these tools, with valid arguments; dropped for the run if the engine cannot follow it.
    let constraint: ToolCallConstraint | undefined = tools.size > 0 && o.constrainCalls !== false ? tools.constraint() : undefined;
    while (step < cfg.maxSteps) {
      if (signal.aborted) return finish(endReason());
      const segments = renderSegments({ ...conversation(), addGenerationPrompt: true });
      const ids = segmentsToIds(segments, o.tokenizer);
      emit({ type: 'step-start', step, promptTokens: ids.length });
      const stream = streamText(o.tokenizer, step, emit);
      // A step that loops is stopped by its own signal; the run's signal stays untouched.
      const guard = o.repetition === false ? null : new RepetitionGuard(o.repetition ?? DEFAULT_REPETITION);
      const looped = new AbortController();
      const request: GenerateRequest = { tokens: ids, sampling: o.sampling, maxTokens, logitsProcessors: o.logitsProcessors?.(step) };
      const generate = () =>
        o.engine.generate(
          constraint ? { ...request, constraint } : request,
          (batch) => {
            stream.push(batch);
            if (guard && !looped.signal.aborted && batch.some((id) => guard.push(id))) looped.abort();
          },
          AbortSignal.any([signal, looped.signal]),
        );
      const result: GenerateResult = await generate().catch((e: unknown) => {
        if (!(e instanceof EngineError && e.code === 'invalid_constraint' && constraint)) throw e;
        constraint = undefined;
        return generate();
      });
      stream.flush();
      const raw = o.tokenizer.decode(result.tokens);
      const finished = result.stop === 'eom' || result.stop === 'eot';
      // abort, length or end_of_text: what was said is kept as a finished turn (eot) so the transcript stays valid.
      const parsed = parseEmitted(result.tokens, finished ? (result.stop as 'eom' | 'eot') : 'eot', o.tokenizer);
      const { content, toolCalls } = finished ? parsed : { content: parsed.content, toolCalls: [] };
      emit({ type: 'step-finish', step, raw, ids: result.tokens, content, toolCalls, stop: result.stop, stopId: result.stopId, stats: result.stats, prompt: { ids, text: segmentsToText(segments) } });
      step++;

      if (!finished) {
        if (result.tokens.length > 0) messages.push({ role: 'assistant', content, raw, ids: result.tokens, stop: 'eot', toolCalls: [] });
        answer = content;
        if (result.stop === 'abort') return finish(looped.signal.aborted && !signal.aborted ? 'repetition' : endReason());
        if (result.stop === 'length') return finish('length');
        return finish('done');
      }

      messages.push({ role: 'assistant', content, raw, ids: result.tokens, stop: result.stop as 'eom' | 'eot', toolCalls });
      answer = content;

      if (toolCalls.length === 0) {
        if (result.stop === 'eot') return finish('done');
        // <|eom_id|> with nothing to run: one error result so the model can recover; twice ends the loop.
        messages.push({ role: 'ipython', content: NOTHING_CALLABLE });
        if (previousWasEmptyEom) return finish('no_progress');
        previousWasEmptyEom = true;
        continue;
      }
      previousWasEmptyEom = false;

      for (const [index, call] of toolCalls.entries()) {
        const callId = `${step - 1}.${index}`;
        emit({ type: 'tool-call', step: step - 1, callId, call });
        const started = performance.now();
        const recorded = o.recordedResult?.(call, step - 1, index);
        let outcome: { content: string; isError: boolean; source?: string };
        try {
          outcome =
            recorded !== undefined
              ? { content: recorded, isError: false }
              : await runToolCall(call, {
                  tools,
                  signal,
                  timeoutMs: cfg.toolTimeoutMs,
                  maxResultTokens: cfg.maxResultTokens,
                  countTokens: (t) => o.tokenizer.encode(t).length,
                  confirm: o.confirm,
                  onConfirmationRequest: () => emit({ type: 'confirmation-request', step: step - 1, callId, call }),
                });
        } catch (e) {
          if (!isAbortError(e)) throw e;
          // Every call gets its result, even on abort: the transcript must stay renderable.
          for (let rest = index; rest < toolCalls.length; rest++) {
            messages.push({ role: 'ipython', content: { error: o.signal?.aborted ? LOOP_TEXTS.abortedByUser() : LOOP_TEXTS.timeBudget() } });
          }
          return finish(endReason());
        }
        messages.push({ role: 'ipython', content: outcome.content });
        emit({ type: 'tool-result', step: step - 1, callId, name: call.kind === 'code' ? 'code_interpreter' : call.name, ...outcome, durationMs: performance.now() - started });
      }
    }
    return finish('max_steps');
  } catch (e) {
    emit({ type: 'error', error: serializeError(e) });
    return finish('error');
  }
}

/** A signal that aborts after `ms` (a plain timer, cleared when the run ends). */
function deadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/**
 * Streams a step's ids as text deltas: decoded with UTF-8 boundaries respected, marked `prose` until
 * the model's python tag (id 128010) and `call` after it.
 */
function streamText(tokenizer: TextTokenizer, step: number, emit: (e: AgentEvent) => void): { push: (ids: number[]) => void; flush: () => void } {
  const decoder = new StreamDecoder(tokenizer);
  let part: 'prose' | 'call' = 'prose';
  let pending = '';
  const send = () => {
    if (pending !== '') emit({ type: 'text-delta', step, text: pending, part });
    pending = '';
  };
  return {
    push: (ids) => {
      for (const id of ids) {
        if (id === PYTHON_TAG && part === 'prose') {
          pending += decoder.flush();
          send();
          part = 'call';
        }
        pending += decoder.push([id]);
      }
      send();
    },
    flush: () => {
      pending += decoder.flush();
      send();
    },
  };
}

/** The prompt's tool options: the conversation's own when it gives any (a replayed file), else derived from the tools. */
function toolOptions(tools: ToolSet, conversation: Conversation): Partial<Conversation> {
  if (conversation.builtinTools !== undefined || conversation.tools !== undefined || tools.size === 0) return {};
  const { builtinTools, tools: custom } = tools.renderOptions();
  return { builtinTools, tools: custom };
}

function definedOnly(o: RunAgentOptions): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) {
    if (o[key] !== undefined) out[key] = o[key];
  }
  return out;
}
