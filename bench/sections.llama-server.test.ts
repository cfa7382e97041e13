/**
 * The bench's remote section without its timings: the loop a real llama-server runs keeps the prefix
 * cache's invariant by the server's own report (after step 1 it evaluates exactly the appended ids).
 */
import { describe, expect, it } from 'vitest';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { startLlamaServer } from '../tests/support/llama-server';
import { llamacppVsServerDecode } from './llamacpp-decode';
import { FLOAT32_SERVER_ARGS, recordingServerEngine, serverPrefill } from './remote';
import { concurrentVsSequentialWall } from './serving-remote';
import { runServerToolLoop } from './server-tool-loop';

const tokenizer = loadTokenizer();

describe('remote section workload (a real llama-server, the micro model)', () => {
  it('the five-step loop the server runs: call, answer, call, answer, call; after step 1 it evaluates exactly the appended ids', async () => {
    const server = await startLlamaServer({ args: FLOAT32_SERVER_ARGS });
    const { engine, outcomes } = recordingServerEngine();
    try {
      await engine.load({ kind: 'server', url: server.url });
      const steps = await runServerToolLoop(engine, tokenizer);
      expect(steps.map((st) => st.stop)).toEqual(['eom', 'eot', 'eom', 'eot', 'eom']);
      const prefill = serverPrefill(steps, outcomes);
      expect(prefill.serverPrefilled).toBe(prefill.appendedTokens);
      expect(prefill.appendedTokens).toBe(steps.slice(1).reduce((n, st) => n + st.appended, 0));
      // The first prompt is evaluated whole; the later ones are small next to their prompts.
      expect(outcomes[0]!.evaluatedTokens).toBe(steps[0]!.promptTokens);
      expect(prefill.appendedTokens).toBeLessThan(steps.slice(1).reduce((n, st) => n + st.promptTokens, 0) / 3);
      // A server that evaluated one id more on one step fails the section.
      outcomes[2] = { ...outcomes[2]!, evaluatedTokens: outcomes[2]!.evaluatedTokens! + 1 };
      expect(() => serverPrefill(steps, outcomes)).toThrow(/step 3: \d+ ids appended, the server evaluated \d+/);
    } finally {
      await engine.unload();
      await server.stop();
    }
  });
});

describe('serving section, the parts with a real llama-server (one round each; the invariants are checked inside)', () => {
  it('llamacpp vs llama-server decode: both decode every token asked; most of our steps are decided from the largest logits', async () => {
    const figures = await llamacppVsServerDecode(1);
    expect(figures.llamacppVsServerDecode).toBeGreaterThan(0);
    expect(figures.llamacppTopDecidedShare).toBeGreaterThan(0.5);
  });

  it('four clients through serve --engine: each answered the same at once as alone, with every token asked', async () => {
    const figures = await concurrentVsSequentialWall(1, 1);
    expect(figures.concurrentVsSequentialWall).toBeGreaterThan(0);
    expect(figures.llamaServerDirectWall).toBeGreaterThan(0);
  });
});
