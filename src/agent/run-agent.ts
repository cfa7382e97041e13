/**
 * The agent loop (shared/FORMAT.md "The loop"): render → generate until a stop id → parse → run the
 * calls in order, one ipython turn each → continue in the same assistant turn. The transcript
 * (format/transcript.ts) is rendered once and grows by what each step emitted (its ids, never
 * re-encoded) and each tool result (encoded once), so every step's prompt extends the previous one,
 * nothing is rendered twice, and the engine prefills only what was appended. With a known context
 * window, the context policy (context-policy.ts) makes room before a step that would not fit, by
 * dropping whole earlier exchanges from what the model sees (never from the messages the run returns).
 */
import { LOOP_TEXTS } from '../tools/failure-texts';
import { callbackStream } from '../engine/callback-stream';
import type { EngineLike, GenerateRequest, LoadedModelInfo, LogitsProcessorSpec, SamplingParams, ToolCallConstraint } from '../engine/contract';
import { EngineError, isAbortError, serializeError } from '../engine/errors';
import { PYTHON_TAG_TEXT } from '../format/special-tokens';
import { conversationSystemOptions } from '../format/system-options';
import { Transcript } from '../format/transcript';
import { type ContextPolicy, NOTHING_DROPPED } from './context-policy';
import { ContextTranscript, contextFit } from './context-transcript';
import type { Conversation, EmittedMessage, TextTokenizer, ToolCall } from '../format/types';
import type { Tool } from '../tools/tool';
import { callId, type AgentEvent, type CallFailure, type FinishReason } from './events';
import { AppFailure } from '../tools/app-failure';
import { pythonJson } from '../format/python-json';
import { DEFAULT_REPETITION, RepetitionGuard, type RepetitionOptions } from './repetition-guard';
import { runStep, type Step } from './run-step';
import { runToolCall, type Confirmer } from './run-tool-call';
import { DEFAULT_MAX_TOKENS_PER_STEP, stepTokenCap } from './step-cap';
import { ToolSet } from './tool-set';

export interface RunAgentOptions {
  engine: EngineLike;
  /** The page's tokenizer: prompts are rendered to ids and results counted and decoded here, not in the engine. */
  tokenizer: TextTokenizer;
  tools?: readonly Tool[];
  /**
   * The run's tools as they are now, read before every step after the first (an MCP server's
   * list_changed, a host page that unregistered a tool). A list whose prompt schemas changed renders
   * the transcript again with the new tool block; the constraint follows the new list.
   */
  refreshTools?: () => Promise<readonly Tool[]>;
  /** The conversation so far (ending with the user's turn, or with tool results to continue from). */
  conversation: Conversation;
  /**
   * The conversation already rendered (a chat that continues): the run appends to it and renders
   * nothing again. It must hold `conversation`'s messages with the system options the run would choose.
   */
  transcript?: Transcript;
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
  /** Asked before running a tool that needs confirmation, with where its data goes; resolve true to run it. */
  confirm?: Confirmer;
  /** Ask about calls answered on this device too (default false: a local answer needs no consent). */
  confirmOnDevice?: boolean;
  /** The loaded model: tool mode is refused for checkpoints not trained on the tool format. */
  model?: LoadedModelInfo | null;
  /** Per-step logits processors (tests force a scripted continuation this way). */
  logitsProcessors?: (step: number) => LogitsProcessorSpec[] | undefined;
  /** Constrain calls to the offered tools and their schemas (default true; false: the model writes calls freely). */
  constrainCalls?: boolean;
  /** What to drop when a step would not fit the model's context window (default `rolling`; needs `model`). */
  contextPolicy?: ContextPolicy;
  /** Replay: a recorded result for a call, used instead of running the tool. */
  recordedResult?: (call: ToolCall, step: number, index: number) => string | undefined;
}

const DEFAULTS = { maxSteps: 8, toolTimeoutMs: 10_000, timeBudgetMs: 300_000, maxTokensPerStep: DEFAULT_MAX_TOKENS_PER_STEP, maxResultTokens: 1500 };

const NOTHING_CALLABLE = { error: LOOP_TEXTS.nothingCallable() };

/** Runs the loop; iterate the events. Never throws: failures arrive as an `error` event, then `finish`. */
export function runAgent(options: RunAgentOptions): AsyncIterable<AgentEvent> {
  const stream = callbackStream<AgentEvent>();
  void agentLoop(options, stream.push).then(stream.end, stream.fail);
  return stream.iterable;
}

async function agentLoop(o: RunAgentOptions, emit: (e: AgentEvent) => void): Promise<void> {
  const cfg = { ...DEFAULTS, ...definedOnly(o) };
  let tools = new ToolSet(o.tools ?? []);
  const budget = deadline(cfg.timeBudgetMs);
  const signal = o.signal ? AbortSignal.any([o.signal, budget.signal]) : budget.signal;
  const endReason = (): FinishReason => (o.signal?.aborted ? 'aborted' : 'time_budget');
  let transcript: ContextTranscript | null = null;
  let answer = '';
  let step = 0;
  let previousWasEmptyEom = false;

  /** A call the loop does not run: its card says why, and the transcript keeps a result for it (LOOP_TEXTS). */
  const notRun = (callStep: number, index: number, call: ToolCall, failure: CallFailure) => {
    const content = { error: LOOP_TEXTS.notRun() };
    emit({ type: 'tool-result', step: callStep, callId: callId(callStep, index), name: toolName(call), content: pythonJson(content), isError: true, durationMs: 0, failure });
    transcript!.append({ role: 'ipython', content });
  };

  const finish = (reason: FinishReason) => {
    budget.clear();
    emit({
      type: 'finish', reason, text: answer, messages: transcript?.messages ?? [...o.conversation.messages], steps: step,
      contextTokens: transcript?.length ?? null, dropped: transcript?.dropped ?? NOTHING_DROPPED,
    });
  };

  try {
    if (tools.size > 0 && o.model && !o.model.toolCalling) {
      throw new EngineError(
        'tool_mode_unsupported',
        `${o.model.modelId} was not trained on Llama 3.1's tool format (eom_id, python_tag, ipython): use a Llama 3.1 or 3.2 model for tools, or turn tools off`,
      );
    }
    for (const tool of tools.all()) void tool.warm?.().catch(() => {});
    // The system block (tools, date) is decided here once: a block that changed mid-run would invalidate the KV cache.
    const options = conversationSystemOptions(o.conversation, tools.size > 0 ? tools.renderOptions() : null);
    const full = o.transcript ?? new Transcript(o.tokenizer, options, o.conversation.messages);
    const maxTokens = stepTokenCap(cfg.maxTokensPerStep, o.model?.contextWindow);
    transcript = new ContextTranscript(full, contextFit(full, o.model?.contextWindow, maxTokens, o.contextPolicy ?? 'rolling'), o.tokenizer);
    const t = transcript;

    // Calls can only name these tools, with valid arguments; dropped for the run if the engine cannot follow it.
    let constraint: ToolCallConstraint | undefined = tools.size > 0 && o.constrainCalls !== false ? tools.constraint() : undefined;
    let constraintDropped = false;
    while (step < cfg.maxSteps) {
      if (signal.aborted) return finish(endReason());
      if (step > 0 && o.refreshTools) {
        const next = new ToolSet(await o.refreshTools());
        if (JSON.stringify(next.renderOptions()) !== JSON.stringify(tools.renderOptions())) {
          // The new list replaces the tools the transcript was written with (the caller's own included); the date stays.
          const { builtinTools: _builtin, tools: _custom, ...rest } = t.options;
          t.rerender(next.size > 0 ? { ...next.renderOptions(), ...rest } : rest);
          constraint = next.size > 0 && o.constrainCalls !== false && !constraintDropped ? next.constraint() : undefined;
        }
        tools = next;
      }
      const drop = t.fit();
      if (drop) emit({ type: 'context-dropped', step, ...drop });
      const ids = t.prompt();
      emit({ type: 'step-start', step, promptTokens: ids.length });
      // A step that loops is stopped by its guard; the run's signal stays untouched.
      const guard = o.repetition === false ? null : new RepetitionGuard(o.repetition ?? DEFAULT_REPETITION);
      const request: GenerateRequest = { tokens: ids, sampling: o.sampling, maxTokens, logitsProcessors: o.logitsProcessors?.(step), ...(constraint ? { constraint } : {}) };
      const result = await runStep({
        engine: o.engine,
        tokenizer: o.tokenizer,
        request,
        signal,
        dropInvalidConstraint: true,
        onText: textDeltas(step, emit),
        ...(guard ? { interrupt: (id: number) => guard.push(id) } : {}),
      });
      if (result.constraintDropped) (constraint = undefined), (constraintDropped = true);
      const emitted = result.result;
      const { content, toolCalls } = result;
      emit({
        type: 'step-finish', step, raw: result.raw, ids: emitted.tokens, content, toolCalls, stop: emitted.stop, stopId: emitted.stopId, stats: emitted.stats,
        prompt: lazyPrompt(ids, t),
      });
      step++;

      if (!result.finished) {
        // abort, length or end_of_text: what was said is kept as a finished turn (eot) so the transcript stays valid.
        if (emitted.tokens.length > 0) t.appendEmitted(assistantMessage(result, 'eot'));
        answer = content;
        if (emitted.stop === 'abort') return finish(result.interrupted && !signal.aborted ? 'repetition' : endReason());
        if (emitted.stop === 'length') return finish('length');
        return finish('done');
      }

      t.appendEmitted(assistantMessage(result, emitted.stop as 'eom' | 'eot'));
      answer = content;

      if (toolCalls.length === 0) {
        if (emitted.stop === 'eot') return finish('done');
        // <|eom_id|> with nothing to run: one error result so the model can recover; twice ends the loop.
        t.append({ role: 'ipython', content: NOTHING_CALLABLE });
        if (previousWasEmptyEom) return finish('no_progress');
        previousWasEmptyEom = true;
        continue;
      }
      previousWasEmptyEom = false;

      // A call the app could not read ends the turn: no call of that step runs, and the model reads nothing more.
      const unreadable = toolCalls.some((c) => c.kind === 'invalid');
      for (const [index, call] of toolCalls.entries()) {
        const id = callId(step - 1, index);
        emit({ type: 'tool-call', step: step - 1, callId: id, call });
        const started = performance.now();
        if (unreadable && call.kind !== 'invalid') {
          notRun(step - 1, index, call, NOT_RUN);
          continue;
        }
        const recorded = o.recordedResult?.(call, step - 1, index);
        const counter = lastCountKept(o.tokenizer);
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
                  countTokens: counter.count,
                  confirm: o.confirm,
                  ...(o.confirmOnDevice ? { confirmOnDevice: true } : {}),
                  onConfirmationRequest: () => emit({ type: 'confirmation-request', step: step - 1, callId: id, call }),
                });
        } catch (e) {
          if (e instanceof AppFailure) {
            // The app's own failure is the user's to read, not the model's: this call and the rest are not run.
            notRun(step - 1, index, call, { kind: 'app_failure', message: e.message });
            for (let rest = index + 1; rest < toolCalls.length; rest++) {
              emit({ type: 'tool-call', step: step - 1, callId: callId(step - 1, rest), call: toolCalls[rest]! });
              notRun(step - 1, rest, toolCalls[rest]!, NOT_RUN);
            }
            return finish('app_failure');
          }
          if (!isAbortError(e)) throw e;
          // Every call gets its result, even on abort: the transcript must stay renderable.
          for (let rest = index; rest < toolCalls.length; rest++) {
            t.append({ role: 'ipython', content: { error: o.signal?.aborted ? LOOP_TEXTS.abortedByUser() : LOOP_TEXTS.timeBudget() } });
          }
          return finish(endReason());
        }
        const failure: CallFailure | undefined = call.kind === 'invalid' ? { kind: 'unreadable_call', message: unreadableMessage(call.arguments.error) } : undefined;
        emit({ type: 'tool-result', step: step - 1, callId: id, name: toolName(call), ...outcome, durationMs: performance.now() - started, ...(failure ? { failure } : {}) });
        // The result's budget count encoded it already when the counted text is the result: those ids are taken.
        const result = { role: 'ipython' as const, content: outcome.content };
        const counted = counter.idsOf(outcome.content);
        if (counted) t.appendEncoded(result, counted);
        else t.append(result);
      }
      if (unreadable) return finish('unreadable_call');
    }
    return finish('max_steps');
  } catch (e) {
    emit({ type: 'error', error: serializeError(e) });
    return finish('error');
  }
}

const NOT_RUN: CallFailure = { kind: 'not_run', message: 'Not run: the turn ended before this call.' };

function unreadableMessage(why: string): string {
  return `The model wrote a tool call this app could not read (${why}), so nothing was run.`;
}

function toolName(call: ToolCall): string {
  return call.kind === 'code' ? 'code_interpreter' : call.name;
}

/** The emitted step as the transcript keeps it: its ids and terminator, and what was read from it once. */
function assistantMessage(step: Step, stop: 'eom' | 'eot'): EmittedMessage {
  return { role: 'assistant', content: step.content, ids: step.result.tokens, stop, toolCalls: step.toolCalls };
}

/** A step's prompt: its ids, and its text decoded only when something reads it (the Inspector). */
function lazyPrompt(ids: number[], transcript: { text(ids: readonly number[]): string }): { ids: number[]; readonly text: string } {
  let text: string | undefined;
  return {
    ids,
    get text() {
      return (text ??= transcript.text(ids));
    },
  };
}

/**
 * A step's text as it streams: `prose` until the model's python tag (id 128010), `call` from it on
 * (the tag written by name), so the deltas concatenate to the step's raw text.
 */
function textDeltas(step: number, emit: (e: AgentEvent) => void): (pieces: readonly string[]) => void {
  let prose = 0;
  let call = 0;
  return (pieces) => {
    const before = pieces[0]!;
    if (before.length > prose) emit({ type: 'text-delta', step, text: before.slice(prose), part: 'prose' }), (prose = before.length);
    if (pieces.length < 2) return;
    const after = PYTHON_TAG_TEXT + pieces.slice(1).join(PYTHON_TAG_TEXT);
    if (after.length > call) emit({ type: 'text-delta', step, text: after.slice(call), part: 'call' }), (call = after.length);
  };
}

/** A token counter that keeps the ids of the last text it counted. */
function lastCountKept(tokenizer: TextTokenizer): { count: (text: string) => number; idsOf: (text: string) => number[] | undefined } {
  let last: { text: string; ids: number[] } | undefined;
  return {
    count: (text) => (last = { text, ids: tokenizer.encode(text) }).ids.length,
    idsOf: (text) => (last?.text === text ? last.ids : undefined),
  };
}

/** A signal that aborts after `ms` (a plain timer, cleared when the run ends). */
function deadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

function definedOnly(o: RunAgentOptions): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) {
    if (o[key] !== undefined) out[key] = o[key];
  }
  return out;
}
