/**
 * The backend conformance suite: one set of checks, run against every backend through the engine
 * that serves it — onnx in Node, onnx on WASM and on WebGPU (SwiftShader) in Chromium, llama-server
 * (remote) and node-llama-cpp (llamacpp), and an in-memory fake of each kind. Plain async functions with their own small assertions (no test
 * framework), so the same checks run in vitest and inside a browser page.
 *
 * The reference for "correct tokens" is the same engine serving the same prompt from an empty cache
 * (a prompt whose first id differs resets it): a cache that is extended, rolled back or repaired must
 * give exactly what a full prefill gives.
 */
import type { EngineLike, GenerateRequest, GenerateResult } from '../../src/engine/contract';
import { END_OF_TEXT, EOM, EOT, FIRST_SPECIAL_ID, PYTHON_TAG, STOP_IDS } from '../../src/format/special-tokens';

export interface ConformanceSubject {
  /** An engine with the backend under test loaded. */
  engine: EngineLike;
  kind: 'logits' | 'sampling';
  /** A logits backend that can roll its KV cache back (onnx can; web-llm cannot). */
  canTruncate: boolean;
  /** Makes the backend's next call fail, as a runtime crash or a server error would. */
  failNext(): void;
  /** Tokens to decode per generation (few on slow devices). Default 4. */
  decode?: number;
  /**
   * A sampling backend whose injected failure never reached the far side (a failable wrapper around
   * a real server): the server's cache still holds the last request's prompt and output, and the
   * next request rightly reuses it — the engine keeps no cache of its own for such a backend.
   */
  failureKeepsFarCache?: boolean;
}

export type Check = (subject: ConformanceSubject) => Promise<void>;

const STOPS = [...STOP_IDS];
const STRUCTURAL = Array.from({ length: 256 }, (_, i) => FIRST_SPECIAL_ID + i).filter((id) => id !== PYTHON_TAG && !STOP_IDS.has(id));

/** A deterministic prompt of ordinary ids; prompts of different seeds differ from their first id. */
export function promptIds(seed: number, length: number): number[] {
  const out: number[] = [];
  let x = seed * 7919 + 17;
  for (let i = 0; i < length; i++) {
    x = (x * 48271) % 2147483647;
    out.push(500 + (x % 20000));
  }
  out[0] = 500 + seed;
  return out;
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function equal(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

function ok(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

const greedy = (tokens: number[], maxTokens: number, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  tokens,
  maxTokens,
  sampling: { temperature: 0 },
  logitsProcessors: [{ type: 'ban', tokens: STOPS }],
  ...extra,
});

/** The same prompt served from an empty cache. */
async function reference(s: ConformanceSubject, request: GenerateRequest): Promise<GenerateResult> {
  const first = request.tokens[0]!;
  await s.engine.generate({ tokens: [first === 600 ? 601 : 600], maxTokens: 1, sampling: { temperature: 0 } });
  const r = await s.engine.generate(request);
  if (r.stats.reusedTokens !== null) equal(r.stats.reusedTokens, 0, 'the reference run reuses nothing');
  return r;
}

/** What a reused count must be: exact for our cache and for a far side that reports it. */
function expectReuse(r: GenerateResult, expected: number, what: string): void {
  if (r.stats.reusedTokens === null) return; // a far side that says nothing: unknown is honest
  equal(r.stats.reusedTokens, expected, `${what}: reused`);
  equal(r.stats.prefilledTokens, r.stats.promptTokens - expected, `${what}: prefilled`);
}

/** A grammar the model must follow: one of three words, a full stop, then eot. */
const DAYS = 'root ::= ("Monday" | "Tuesday" | "Sunday") "."';

export const CHECKS: Record<string, Check> = {
  'extending the cached ids prefills only the new ones, and gives what a full prefill gives': async (s) => {
    const n = s.decode ?? 4;
    const a = promptIds(1, 12);
    const first = await s.engine.generate(greedy(a, n));
    equal(first.tokens.length, n, 'first run length');
    const b = [...a, ...first.tokens, ...promptIds(2, 3).slice(1)];
    const r = await s.engine.generate(greedy(b, n));
    // The last sampled id was never fed: the cache holds the prompt and every emitted id but the last.
    expectReuse(r, a.length + first.tokens.length - 1, 'extension');
    equal(r.tokens, (await reference(s, greedy(b, n))).tokens, 'tokens after an extension');
  },

  'a divergent prompt keeps the common prefix and rolls back the rest': async (s) => {
    const n = s.decode ?? 4;
    const a = promptIds(3, 12);
    await s.engine.generate(greedy(a, n));
    const c = [...a.slice(0, 8), ...promptIds(4, 5).slice(1)];
    const r = await s.engine.generate(greedy(c, n));
    expectReuse(r, s.kind === 'logits' && !s.canTruncate ? 0 : 8, 'divergence');
    // After the rollback the cache holds exactly the new prompt and its output: extending them reuses all of it.
    const d = [...c, ...r.tokens, 905];
    const extended = await s.engine.generate(greedy(d, n));
    expectReuse(extended, c.length + r.tokens.length - 1, 'extension after a divergence');
    equal(r.tokens, (await reference(s, greedy(c, n))).tokens, 'tokens after a divergence');
    equal(extended.tokens, (await reference(s, greedy(d, n))).tokens, 'tokens of the extension after a divergence');
  },

  'the same prompt again, or a shorter one, prefills at least one id and gives the same tokens': async (s) => {
    const n = s.decode ?? 4;
    const a = promptIds(5, 12);
    const first = await s.engine.generate(greedy(a, n));
    const again = await s.engine.generate(greedy(a, n));
    expectReuse(again, s.kind === 'logits' && !s.canTruncate ? 0 : a.length - 1, 'same prompt');
    equal(again.tokens, first.tokens, 'tokens for the same prompt');
    const shorter = a.slice(0, 9);
    const r = await s.engine.generate(greedy(shorter, n));
    expectReuse(r, s.kind === 'logits' && !s.canTruncate ? 0 : 8, 'shorter prompt');
    equal(r.tokens, (await reference(s, greedy(shorter, n))).tokens, 'tokens for a shorter prompt');
  },

  'each stop id ends the generation, says which fired, and is not among the tokens': async (s) => {
    const a = promptIds(6, 8);
    for (const [id, stop] of [[EOM, 'eom'], [EOT, 'eot'], [END_OF_TEXT, 'end_of_text']] as const) {
      const r = await s.engine.generate({ tokens: a, maxTokens: 8, logitsProcessors: [{ type: 'force', tokens: [PYTHON_TAG, 1734, id] }] });
      equal([r.stop, r.stopId, r.tokens, r.stats.decodedTokens], [stop, id, [PYTHON_TAG, 1734], 3], `stop on ${id}`);
    }
  },

  'maxTokens ends with "length" and no stop id': async (s) => {
    const r = await s.engine.generate(greedy(promptIds(7, 8), 3));
    equal([r.stop, r.stopId, r.tokens.length, r.stats.decodedTokens], ['length', null, 3, 3], 'length stop');
  },

  'an abort mid-decode returns what was emitted; the next request is served correctly': async (s) => {
    const a = promptIds(8, 10);
    const controller = new AbortController();
    const seen: number[] = [];
    const r = await s.engine.generate(greedy(a, 64), (ids) => {
      seen.push(...ids);
      controller.abort();
    }, controller.signal);
    equal([r.stop, r.stopId], ['abort', null], 'abort stop');
    ok(r.tokens.length > 0 && r.tokens.length < 64, `an abort mid-decode keeps some tokens (got ${r.tokens.length})`);
    equal(seen, r.tokens, 'streamed ids are the result ids');
    const b = [...a, ...r.tokens, 777];
    const n = s.decode ?? 4;
    equal((await s.engine.generate(greedy(b, n))).tokens, (await reference(s, greedy(b, n))).tokens, 'tokens after an abort');
  },

  "a consumer whose callback throws gets its error back, and the cache stays usable": async (s) => {
    const a = promptIds(14, 10);
    const error = await s.engine.generate(greedy(a, 64), () => {
      throw new Error('the page dropped the stream');
    }).then(
      () => null,
      (e: unknown) => e,
    );
    ok(error instanceof Error && error.message === 'the page dropped the stream', `expected the callback's own error, got ${String(error)}`);
    // Not a backend failure: what the engine holds is still a prefix of this prompt's conversation, and reused.
    const n = s.decode ?? 4;
    const r = await s.engine.generate(greedy([...a, 903], n));
    const rollsBack = !(s.kind === 'logits' && !s.canTruncate);
    if (rollsBack && r.stats.reusedTokens !== null) ok(r.stats.reusedTokens >= a.length, `the cache was thrown away (reused ${r.stats.reusedTokens})`);
    equal(r.tokens, (await reference(s, greedy([...a, 903], n))).tokens, 'tokens after a failed consumer');
  },

  'an already aborted request does no work': async (s) => {
    const controller = new AbortController();
    controller.abort();
    const r = await s.engine.generate(greedy(promptIds(9, 6), 4), undefined, controller.signal);
    equal([r.stop, r.tokens, r.stats.decodedTokens], ['abort', [], 0], 'pre-aborted request');
  },

  'a banned id is never sampled, and structural special ids never, whatever their bias': async (s) => {
    const a = promptIds(10, 8);
    const top = (await s.engine.generate(greedy(a, 1))).tokens[0]!;
    const banned = await s.engine.generate(greedy(a, 1, { logitsProcessors: [{ type: 'ban', tokens: [...STOPS, top] }] }));
    ok(banned.tokens[0] !== top, `the banned id ${top} was sampled`);
    const logitBias = Object.fromEntries(STRUCTURAL.map((id) => [id, 1000]));
    const pushed = await s.engine.generate({ tokens: a, maxTokens: s.decode ?? 4, sampling: { temperature: 1, seed: 3, logitBias }, logitsProcessors: [{ type: 'ban', tokens: STOPS }] });
    equal(pushed.tokens.filter((id) => STRUCTURAL.includes(id)), [], 'structural ids sampled');
  },

  'a forced continuation is emitted, then the model runs free from it': async (s) => {
    const n = s.decode ?? 4;
    const a = promptIds(11, 8);
    const forced = [2028, 374];
    const r = await s.engine.generate(greedy(a, forced.length + n, { logitsProcessors: [{ type: 'ban', tokens: STOPS }, { type: 'force', tokens: forced }] }));
    equal(r.tokens.slice(0, forced.length), forced, 'forced ids');
    equal(r.tokens.slice(forced.length), (await reference(s, greedy([...a, ...forced], n))).tokens, 'the free run after the forced ids');
  },

  'seeded sampling gives the same tokens for the same seed, from a reused cache too': async (s) => {
    const a = promptIds(12, 8);
    const request = { tokens: a, maxTokens: s.decode ?? 4, sampling: { temperature: 0.9, topP: 0.95, seed: 42 }, logitsProcessors: [{ type: 'ban' as const, tokens: STOPS }] };
    const first = await s.engine.generate(request);
    const second = await s.engine.generate(request);
    equal(second.tokens, first.tokens, 'seeded runs');
  },

  'a failure inside the backend is a typed error and leaves the engine consistent': async (s) => {
    const n = s.decode ?? 4;
    const a = promptIds(13, 10);
    const before = await s.engine.generate(greedy(a, n));
    s.failNext();
    const error = await s.engine.generate(greedy([...a, 901], n)).then(
      () => null,
      (e: unknown) => e,
    );
    ok(error !== null && (error as { name?: string }).name === 'EngineError', `expected an EngineError, got ${String(error)}`);
    const b = [...a, 902, 903];
    const r = await s.engine.generate(greedy(b, n));
    // Our cache is dropped; a far side that never saw the failure still holds the last request (its last id never fed).
    expectReuse(r, s.failureKeepsFarCache ? commonPrefix([...a, ...before.tokens.slice(0, -1)], b) : 0, 'after a failure');
    equal(r.tokens, (await reference(s, greedy(b, n))).tokens, 'tokens after a failure');
  },
  // Constraints on a sampling backend travel to the far side, which checks them itself (its own tests).
  'a constraint holds, and its state is the generation\'s: after an abort and a rollback it gives what an empty cache gives': async (s) => {
    if (s.kind === 'sampling') return;
    const a = promptIds(15, 10);
    const request: GenerateRequest = { tokens: a, maxTokens: 16, sampling: { temperature: 0 }, constraint: { type: 'grammar', grammar: DAYS } };
    const ref = await reference(s, request);
    equal([ref.stop, ref.stopId], ['eot', EOT], 'a constrained reply ends with its terminator');
    ok(ref.tokens.length > 0 && ref.tokens.every((id) => id < FIRST_SPECIAL_ID), `a constrained reply of ordinary ids (got ${JSON.stringify(ref.tokens)})`);
    const long: GenerateRequest = { tokens: [...a, 905], maxTokens: 64, sampling: { temperature: 0 }, constraint: { type: 'json_schema', schema: { type: 'string', minLength: 80 } } };
    const controller = new AbortController();
    const aborted = await s.engine.generate(long, () => controller.abort(), controller.signal);
    equal(aborted.stop, 'abort', 'the constrained run was aborted');
    equal((await s.engine.generate(request)).tokens, ref.tokens, 'a constrained run after an abort and a rollback');
    equal((await s.engine.generate(long)).tokens, (await reference(s, long)).tokens, 'the aborted constrained run again, from the cache');
    const call = await s.engine.generate({ tokens: a, maxTokens: 48, sampling: { temperature: 1, seed: 5 }, constraint: { type: 'tool_calls', mode: 'required', tools: [], builtins: ['wolfram_alpha'] } });
    equal(call.tokens[0], PYTHON_TAG, 'a required built-in call starts with the tag id');
    if (call.stop !== 'length') equal([call.stop, call.stopId], ['eom', EOM], 'a built-in call ends with eom');
  },

  'a forced continuation the constraint cannot follow is emitted as forced; the constraint is dropped': async (s) => {
    if (s.kind === 'sampling') return;
    const forced = [2028, 374];
    const r = await s.engine.generate({ tokens: promptIds(16, 8), maxTokens: 6, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'force', tokens: forced }], constraint: { type: 'json_schema', schema: { type: 'boolean' } } });
    equal(r.tokens.slice(0, forced.length), forced, 'forced ids');
  },

  'a constraint that cannot be followed is refused before anything runs, and the cache is kept': async (s) => {
    if (s.kind === 'sampling') return;
    const n = s.decode ?? 4;
    const a = promptIds(17, 10);
    const first = await s.engine.generate(greedy(a, n));
    const error = await s.engine.generate({ tokens: [...a, 906], maxTokens: 4, constraint: { type: 'grammar', grammar: 'root ::= "a" root' } }).then(
      () => null,
      (e: unknown) => e,
    );
    equal((error as { code?: string } | null)?.code, 'invalid_constraint', 'the refusal');
    const b = [...a, ...first.tokens, 907];
    expectReuse(await s.engine.generate(greedy(b, n)), a.length + first.tokens.length - 1, 'after a refused constraint');
  },
};
