/**
 * `concurrentVsSequentialWall`: four clients of `npm run serve --engine URL` in front of a real
 * llama-server with four slots (`-np 4`): the wall time of their four chat completions sent at once ÷
 * the same four sent one after another, in interleaved rounds (medians). The server forwards requests
 * as they come and llama-server batches the sequences: the goal is ≤ 0.5.
 * `llamaServerDirectWall`: the same ratio for the same prompts (as ids) sent to llama-server itself —
 * what its batching gives on this machine, the floor for the first (serve adds no queue of its own).
 * Checked: every answer is the same sent at once as alone (greedy), and has the tokens asked.
 * The micro model's F32 GGUF in float32 throughout (in F16 llama.cpp's batched decode rounds differently
 * from one sequence alone, and greedy answers change), on two threads (the bench's quiet machine; a test
 * on a shared machine passes one: llama.cpp's thread barrier spins when the cores are shared).
 */
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { renderIds } from '../src/format/render';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { createApiServer } from '../src/server/api/api-server';
import { startLlamaServer } from '../tests/support/llama-server';
import { createNodeEngine } from '../worker/create-node-engine';
import { interleave, median, round, timed } from './measure';
import { FLOAT32_SERVER_ARGS } from './remote';

const CLIENTS = 4;
const QUESTIONS = ['Hello!', 'Who are you?', 'What is the capital of Japan?', 'Good morning!'];
const MAX_TOKENS = 48;
const ROUNDS = 3;

const DATE = '11 August 2026';

export interface ConcurrentWall {
  concurrentVsSequentialWall: number;
  concurrentMsMedian: number;
  sequentialMsMedian: number;
  llamaServerDirectWall: number;
}

export async function concurrentVsSequentialWall(rounds = ROUNDS, threads = 2): Promise<ConcurrentWall> {
  // Four slots of the micro model's 1,024 positions each (llama-server splits -c across -np).
  const llama = await startLlamaServer({ contextSize: 1024 * CLIENTS, threads, args: [...FLOAT32_SERVER_ARGS, '-np', String(CLIENTS), '--cache-ram', '0'] });
  const tokenizer = loadTokenizer();
  const engine = createNodeEngine();
  const server = createApiServer({ engine, tokenizer, date: DATE });
  try {
    await engine.load({ kind: 'server', url: llama.url });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'unused', maxRetries: 0 });
    const ask = async (question: string): Promise<string> => {
      const reply = await client.chat.completions.create({
        model: engine.model!.modelId,
        messages: [{ role: 'user', content: question }],
        max_tokens: MAX_TOKENS,
        temperature: 0,
        // The same length whatever the answer: every request decodes MAX_TOKENS.
        logit_bias: { 128001: -100, 128008: -100, 128009: -100 },
      });
      const choice = reply.choices[0]!;
      if (reply.usage?.completion_tokens !== MAX_TOKENS) throw new Error(`"${question}" got ${reply.usage?.completion_tokens} tokens, not ${MAX_TOKENS}`);
      return choice.message.content ?? '';
    };
    const alone: string[] = [];
    for (const q of QUESTIONS) alone.push(await ask(q));
    const check = (answers: string[]) => {
      answers.forEach((a, i) => {
        if (a !== alone[i]) throw new Error(`"${QUESTIONS[i]}" was answered differently sent with others`);
      });
    };
    const throughServe = await wallRatio(rounds, ask, check);
    const direct = await wallRatio(rounds, directAsk(llama.url, tokenizer), () => {});
    return {
      concurrentVsSequentialWall: round(throughServe.ratio),
      concurrentMsMedian: round(throughServe.concurrentMs),
      sequentialMsMedian: round(throughServe.sequentialMs),
      llamaServerDirectWall: round(direct.ratio),
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await engine.unload();
    await llama.stop();
  }
}

/** Medians of the four questions sent at once and one after another, in interleaved rounds. */
async function wallRatio(rounds: number, ask: (q: string) => Promise<string>, check: (answers: string[]) => void): Promise<{ ratio: number; concurrentMs: number; sequentialMs: number }> {
  const ms = await interleave(rounds, {
    concurrent: () => timed(async () => check(await Promise.all(QUESTIONS.map(ask)))),
    sequential: () =>
      timed(async () => {
        const answers: string[] = [];
        for (const q of QUESTIONS) answers.push(await ask(q));
        check(answers);
      }),
  });
  return { ratio: median(ms.concurrent) / median(ms.sequential), concurrentMs: median(ms.concurrent), sequentialMs: median(ms.sequential) };
}

/** The question's chat prompt as ids, straight to llama-server's /v1/completions (the stops banned, as above). */
function directAsk(url: string, tokenizer: ReturnType<typeof loadTokenizer>): (q: string) => Promise<string> {
  return async (question) => {
    const prompt = renderIds({ messages: [{ role: 'user', content: question }], date: DATE }, tokenizer);
    const res = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, max_tokens: MAX_TOKENS, temperature: 0, logit_bias: [[128001, false], [128008, false], [128009, false]] }),
    });
    const body = (await res.json()) as { choices: Array<{ text: string }>; usage: { completion_tokens: number } };
    if (body.usage.completion_tokens !== MAX_TOKENS) throw new Error(`llama-server gave "${question}" ${body.usage.completion_tokens} tokens`);
    return body.choices[0]!.text;
  };
}
