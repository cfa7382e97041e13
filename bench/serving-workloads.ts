/**
 * What several clients of `npm run serve` see, measured through the server itself (createApiServer on
 * the in-process ONNX engine, the official `openai` client over real HTTP):
 *
 * - two conversations interleaved (A1, B1, A2, B2): the prompt ids their second turns read from the KV
 *   cache, against the same second turns sent right after their first turn on a fresh engine;
 * - a short request (max_tokens 8) sent while another client streams a long generation: its latency,
 *   against the same request on the idle server.
 *
 * Invariants (checked, a failure throws): greedy answers are the same interleaved and alone; the short
 * requests get the same answer during the long generation as alone; the long generation is still
 * running when each short one ends, and produces every token asked.
 */
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { createApiServer } from '../src/server/api/api-server';
import { EOM, EOT, END_OF_TEXT } from '../src/format/special-tokens';
import { createNodeEngine } from '../worker/create-node-engine';
import { timed } from './measure';

const DATE = '11 August 2026';

export interface Serving {
  client: OpenAI;
  close(): Promise<void>;
}

/** The server `npm run serve` runs, on `model` with `slots` KV caches, listening on a free loopback port. */
export async function startServing(model: string, slots: number): Promise<Serving> {
  const engine = createNodeEngine();
  await engine.load(model, { slots });
  const server = createApiServer({ engine, tokenizer: loadTokenizer(), date: DATE });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new OpenAI({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'unused', maxRetries: 0 });
  return {
    client,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await engine.unload();
    },
  };
}

/** The two conversations: a first question, then a follow-up after the model's answer. */
const CONVERSATIONS = [
  ['Hello!', 'Who are you?'],
  ['Good morning!', 'How are you?'],
] as const;

export interface InterleavedShare {
  /** Prompt ids the two second turns read from the cache, interleaved A1, B1, A2, B2. */
  interleavedCached: number;
  /** The same, each conversation's two turns sent alone on a fresh engine. */
  aloneCached: number;
  share: number;
}

/** Cached ids of the second turns interleaved on a `slots`-slot engine, against each conversation alone. */
export async function measureInterleavedShare(model: string, slots: number): Promise<InterleavedShare> {
  const interleaved = await startServing(model, slots);
  let together: TurnTwo[];
  try {
    const firsts = [];
    for (const c of CONVERSATIONS) firsts.push(await turn(interleaved.client, model, [{ role: 'user', content: c[0] }]));
    together = [];
    for (const [k, c] of CONVERSATIONS.entries()) together.push(await turn(interleaved.client, model, [...firsts[k]!.messages, { role: 'user', content: c[1] }]));
  } finally {
    await interleaved.close();
  }
  const alone: TurnTwo[] = [];
  for (const c of CONVERSATIONS) {
    const fresh = await startServing(model, 1);
    try {
      const first = await turn(fresh.client, model, [{ role: 'user', content: c[0] }]);
      alone.push(await turn(fresh.client, model, [...first.messages, { role: 'user', content: c[1] }]));
    } finally {
      await fresh.close();
    }
  }
  together.forEach((t, k) => {
    if (t.answer !== alone[k]!.answer) throw new Error(`serving: conversation ${k + 1}'s second answer differs interleaved (${JSON.stringify(t.answer)}) and alone (${JSON.stringify(alone[k]!.answer)})`);
  });
  const interleavedCached = together.reduce((n, t) => n + t.cached, 0);
  const aloneCached = alone.reduce((n, t) => n + t.cached, 0);
  if (aloneCached === 0) throw new Error('serving: the second turns alone read nothing from the cache');
  return { interleavedCached, aloneCached, share: interleavedCached / aloneCached };
}

interface TurnTwo {
  answer: string;
  cached: number;
  messages: ChatCompletionMessageParam[];
}

async function turn(client: OpenAI, model: string, messages: ChatCompletionMessageParam[]): Promise<TurnTwo> {
  const r = await client.chat.completions.create({ model, messages, temperature: 0 });
  const answer = r.choices[0]!.message.content ?? '';
  return { answer, cached: r.usage?.prompt_tokens_details?.cached_tokens ?? 0, messages: [...messages, { role: 'assistant', content: answer }] };
}

export interface ShortBehindLong {
  /** Latency of each short request on the idle server, ms. */
  aloneMs: number[];
  /** Latency of each short request sent while the long generation streams, ms. */
  duringMs: number[];
}

export interface ShortBehindLongOptions {
  model: string;
  slots: number;
  /** Tokens the long generation produces (its terminators are biased away). */
  longTokens: number;
  /** Rounds: each times `shortsPerRound` short requests alone, then as many during one long generation. */
  rounds: number;
  shortsPerRound: number;
}

const SHORT = { messages: [{ role: 'user' as const, content: 'Hi!' }], max_tokens: 8, temperature: 0 };
/** Terminators biased away: the long generation runs to its max_tokens. */
const NO_STOP = Object.fromEntries([EOM, EOT, END_OF_TEXT].map((id) => [String(id), -100]));

/** Short requests timed alone and during a long generation on the same server, in rounds. */
export async function measureShortBehindLong(options: ShortBehindLongOptions): Promise<ShortBehindLong> {
  const { model, longTokens } = options;
  const serving = await startServing(model, options.slots);
  const { client } = serving;
  const short = async (): Promise<{ ms: number; answer: string }> => {
    let answer = '';
    const ms = await timed(async () => {
      answer = (await client.chat.completions.create({ model, ...SHORT })).choices[0]!.message.content ?? '';
    });
    return { ms, answer };
  };
  const result: ShortBehindLong = { aloneMs: [], duringMs: [] };
  try {
    const expected = (await short()).answer;
    for (let r = 0; r < options.rounds; r++) {
      for (let k = 0; k < options.shortsPerRound; k++) result.aloneMs.push(check(await short(), expected).ms);
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: `Tell me a very long story, number ${r + 1}.` }],
        max_tokens: longTokens,
        temperature: 0,
        logit_bias: NO_STOP,
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = stream[Symbol.asyncIterator]();
      // The long generation has started when its first piece arrives.
      await chunks.next();
      let longDone = false;
      const drained = (async () => {
        let generated = 0;
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) generated = next.value.usage?.completion_tokens ?? generated;
        longDone = true;
        return generated;
      })();
      for (let k = 0; k < options.shortsPerRound; k++) {
        const s = check(await short(), expected);
        if (longDone) throw new Error(`serving: the long generation ended before short request ${k + 1} did: make it longer`);
        result.duringMs.push(s.ms);
      }
      const generated = await drained;
      if (generated !== longTokens) throw new Error(`serving: the long generation produced ${generated} tokens, not ${longTokens}`);
    }
  } finally {
    await serving.close();
  }
  return result;
}

function check<T extends { answer: string }>(s: T, expected: string): T {
  if (s.answer !== expected) throw new Error(`serving: the short request answered ${JSON.stringify(s.answer)}, alone ${JSON.stringify(expected)}`);
  return s;
}
