/**
 * A real llama-server as the chat's engine, killed in the middle of a generation: the turn ends with
 * a plain-words error, the transcript is what it was before the message (it still renders, and the
 * next message extends it), and once the server is back the next message works, its first step
 * reporting a reused cache of 0 although its prompt starts with what the dead server had cached.
 * The tiny model's GGUF (random weights) serves: its noise runs long, so the kill lands mid-stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ggufPath } from '../../scripts/setup/gguf-models';
import type { GenerateStats } from '../engine/contract';
import { renderIds } from '../format/render';
import { loadTokenizer } from '../format/tokenizer/load-node';
import { startLlamaServer, type LlamaServer } from '../../tests/support/llama-server';
import { createNodeEngine } from '../../worker/create-node-engine';
import { ChatSession, type SessionEvent } from './chat-session';

const tokenizer = loadTokenizer();
const engine = createNodeEngine();
let server: LlamaServer;

beforeAll(async () => {
  server = await startLlamaServer({ model: ggufPath('tiny-llama', 'F32') });
  await engine.load({ kind: 'server', url: server.url });
});
afterAll(async () => {
  await engine.unload();
  await server?.stop();
});

/** The first step's stats of each turn, and each turn's end. */
function watch(s: ChatSession) {
  const firstSteps = new Map<number, GenerateStats>();
  const ends: Array<Extract<SessionEvent, { type: 'turn-end' }>> = [];
  const prompts: number[][] = [];
  s.on((e) => {
    if (e.type === 'turn-end') ends.push(e);
    if (e.type === 'agent' && e.event.type === 'step-finish') {
      if (!firstSteps.has(e.turn)) firstSteps.set(e.turn, e.event.stats);
      prompts.push(e.event.prompt.ids);
    }
  });
  return { firstSteps, ends, prompts };
}

describe('a chat whose engine server dies mid-generation', () => {
  it('ends the turn in plain words, keeps a renderable transcript, and works again after a restart with its cache reset', async () => {
    let maxTokensPerStep = 24;
    const session = new ChatSession({
      engine,
      tokenizer: () => tokenizer,
      model: () => engine.model,
      tools: () => [],
      settings: () => ({ sampling: { temperature: 0 }, maxSteps: 1, maxTokensPerStep }),
      confirm: async () => 'deny',
    });
    const seen = watch(session);
    await session.send('Hello');
    expect(seen.ends[0]).toMatchObject({ kept: true, error: null });
    const kept = session.transcript;
    expect(kept.map((m) => m.role)).toEqual(['user', 'assistant']);

    // The next answer may run long; the server dies as its first tokens arrive.
    maxTokensPerStep = 600;
    let killed: Promise<void> | null = null;
    const stop = session.on((e) => {
      if (e.type === 'agent' && e.event.type === 'text-delta') killed ??= server.kill();
    });
    await session.send('Tell me more.');
    stop();
    expect(killed).not.toBeNull();
    await killed;
    const failed = seen.ends.at(-1)!;
    expect(failed).toMatchObject({ reason: 'error', kept: false, error: { code: 'server_unreachable' } });
    expect(failed.error!.message).toMatch(/^the connection to the engine server at http:\/\/127\.0\.0\.1:\d+ was lost during generation|ended the stream mid-generation/);
    // Nothing half-valid is kept: the transcript is the turn before, and it renders.
    expect(session.transcript).toEqual(kept);
    expect(renderIds({ messages: kept, addGenerationPrompt: true }, tokenizer).length).toBeGreaterThan(10);

    // Down: the next message fails at once, in words, and the transcript is unchanged.
    await session.send('Tell me more.');
    expect(seen.ends.at(-1)!.error).toMatchObject({ code: 'server_unreachable', message: expect.stringMatching(/cannot reach the engine server at .* \(connection refused: is it running\?\)/) });
    expect(session.transcript).toEqual(kept);

    // Back up: the same message works. The fresh server reused nothing, though the prompt starts with
    // the whole first turn that the dead server had cached.
    await server.restart();
    maxTokensPerStep = 24;
    await session.send('Tell me more.');
    const last = seen.ends.at(-1)!;
    expect(last).toMatchObject({ kept: true, error: null });
    expect(seen.firstSteps.get(last.turn)).toMatchObject({ reusedTokens: 0 });
    expect(seen.prompts).toHaveLength(2); // the killed and the refused turn finished no step
    const [firstPrompt, lastPrompt] = seen.prompts;
    expect(lastPrompt!.slice(0, firstPrompt!.length)).toEqual(firstPrompt);
    expect(session.transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});
