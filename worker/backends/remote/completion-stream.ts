/**
 * Reads one streamed `/v1/completions` response, chunk by chunk (each SSE `data:` payload), in either
 * server's shape: generated ids from vLLM's `choices[0].token_ids` or llama.cpp's
 * `choices[0].logprobs.content[].id`; reused prompt tokens from `usage.prompt_tokens_details.cached_tokens`
 * or llama.cpp's `timings.cache_n` (null when the server says neither: never a guess); the prompt the
 * server evaluated (vLLM's `prompt_token_ids`, `usage.prompt_tokens`) checked against ours.
 *
 * Invariants: ids are handed on in order, at most `maxTokens`, ending with the first stop id (anything
 * the server sends after that is an overrun the caller cuts off); a chunk with text but no ids, a
 * changed prompt, an error event or a stop without its id is an EngineError. Pure.
 */
import { EngineError } from '../../../src/engine/errors';
import { httpError } from '../../../src/engine/remote/server-errors';

export interface StreamReport {
  /** Prompt ids the server reused from its cache; null when it does not say. */
  reusedTokens: number | null;
  /** The prompt length the server reports (usage.prompt_tokens); null when it does not say. */
  promptTokens: number | null;
  /** Prompt ids it ran through the model (llama.cpp's timings.prompt_n); null when it does not say. */
  evaluatedTokens: number | null;
  /** The server's finish_reason ('stop', 'length', ...), or null before the last chunk. */
  finishReason: string | null;
  /** Ids handed on. */
  generated: number;
}

interface Chunk {
  error?: unknown;
  choices?: Array<{
    text?: unknown;
    token_ids?: unknown;
    prompt_token_ids?: unknown;
    logprobs?: { content?: Array<{ id?: unknown }> } | null;
    finish_reason?: unknown;
    stop_reason?: unknown;
  }>;
  usage?: { prompt_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null } | null;
  timings?: { cache_n?: unknown; prompt_n?: unknown } | null;
}

export class CompletionStream {
  private generated = 0;
  private finished = false;
  private lastId: number | null = null;
  private done = false;
  private finishReason: string | null = null;
  private stopReason: unknown = null;
  private cached: number | null = null;
  private cacheN: number | null = null;
  private promptTokens: number | null = null;
  private evaluated: number | null = null;

  constructor(
    private readonly url: string,
    private readonly prompt: readonly number[],
    private readonly stopIds: ReadonlySet<number>,
    private readonly maxTokens: number,
    /** The request carried a constraint: an error event about it is its refusal. */
    private readonly constrained = false,
  ) {}

  /** Whether `[DONE]` arrived. */
  get complete(): boolean {
    return this.done;
  }

  /**
   * One `data:` payload. Returns the ids to hand on, and `overrun` when the server went on after the
   * last id we take (a stop id, or maxTokens): the caller then stops reading.
   */
  accept(data: string): { ids: number[]; overrun: boolean } {
    if (data.trim() === '[DONE]') {
      this.done = true;
      return { ids: [], overrun: false };
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      throw new EngineError('server_error', `the engine server at ${this.url} streamed something that is not JSON: ${data.slice(0, 200)}`);
    }
    if (chunk.error !== undefined && chunk.error !== null) {
      const code = (chunk.error as { code?: unknown }).code;
      throw httpError(this.url, typeof code === 'number' ? code : 500, data, this.constrained);
    }
    this.readUsage(chunk);
    const choice = chunk.choices?.[0];
    if (!choice) return { ids: [], overrun: false };
    if (choice.prompt_token_ids !== undefined && choice.prompt_token_ids !== null) this.checkPrompt(choice.prompt_token_ids);
    const ids = this.ids(choice);
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    if (choice.stop_reason !== undefined) this.stopReason = choice.stop_reason;
    const out: number[] = [];
    let overrun = false;
    for (const id of ids) {
      if (this.finished) {
        overrun = true;
        break;
      }
      out.push(id);
      this.generated++;
      this.lastId = id;
      if (this.stopIds.has(id) || this.generated >= this.maxTokens) this.finished = true;
    }
    return { ids: out, overrun };
  }

  /**
   * Call when the body ended. Throws when it ended mid-generation (no finish reason and no
   * `[DONE]`: the connection was lost) or when the server says it stopped on a token it never sent.
   * Returns the ids still to hand on (a stop id only reported as vLLM's `stop_reason`).
   */
  finish(): number[] {
    if (!this.done && this.finishReason === null && !this.finished) {
      throw new EngineError('server_unreachable', `the engine server at ${this.url} ended the stream mid-generation (after ${this.generated} tokens)`);
    }
    if (this.finishReason !== 'stop' || (this.lastId !== null && this.stopIds.has(this.lastId))) return [];
    if (typeof this.stopReason === 'number' && this.stopIds.has(this.stopReason) && this.generated < this.maxTokens) {
      this.generated++;
      this.lastId = this.stopReason;
      return [this.stopReason];
    }
    throw new EngineError('server_error', `the engine server at ${this.url} says it stopped, but did not send the stop token's id (send skip_special_tokens: false; vLLM needs return_token_ids)`);
  }

  report(): StreamReport {
    return {
      reusedTokens: this.cached ?? this.cacheN,
      promptTokens: this.promptTokens,
      evaluatedTokens: this.evaluated,
      finishReason: this.finishReason,
      generated: this.generated,
    };
  }

  private ids(choice: NonNullable<Chunk['choices']>[number]): number[] {
    let ids: unknown[] | null = null;
    if (Array.isArray(choice.token_ids)) ids = choice.token_ids;
    else if (Array.isArray(choice.logprobs?.content)) ids = choice.logprobs.content.map((c) => c?.id);
    if (ids === null || ids.length === 0) {
      if (typeof choice.text === 'string' && choice.text !== '') {
        throw new EngineError(
          'server_error',
          `the engine server at ${this.url} returned text without token ids; it must stream ids (vLLM ≥ 0.10.2 with return_token_ids, or llama-server with logprobs)`,
        );
      }
      return [];
    }
    for (const id of ids) {
      if (!Number.isInteger(id) || (id as number) < 0) throw new EngineError('server_error', `the engine server at ${this.url} streamed an invalid token id ${JSON.stringify(id)}`);
    }
    return ids as number[];
  }

  private checkPrompt(ids: unknown): void {
    const same = Array.isArray(ids) && ids.length === this.prompt.length && ids.every((id, i) => id === this.prompt[i]);
    if (!same) {
      const n = Array.isArray(ids) ? ids.length : 0;
      throw new EngineError('server_error', `the engine server at ${this.url} evaluated a different prompt (${n} ids, we sent ${this.prompt.length}): it must not add or change tokens`);
    }
  }

  private readUsage(chunk: Chunk): void {
    const usage = chunk.usage;
    if (usage) {
      if (Number.isInteger(usage.prompt_tokens)) {
        this.promptTokens = usage.prompt_tokens as number;
        if (this.promptTokens !== this.prompt.length) this.checkPrompt(new Array(this.promptTokens));
      }
      const cached = usage.prompt_tokens_details?.cached_tokens;
      if (Number.isInteger(cached)) this.cached = cached as number;
    }
    const t = chunk.timings;
    if (t) {
      if (Number.isInteger(t.cache_n)) this.cacheN = t.cache_n as number;
      if (Number.isInteger(t.prompt_n)) this.evaluated = t.prompt_n as number;
    }
  }
}
