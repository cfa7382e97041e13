/**
 * `llamacppVsServerDecode`: decode tok/s of our llamacpp backend (node-llama-cpp's prebuilt binary,
 * our sampler and prefix cache, through the Engine) ÷ llama-server's, on the same weights (the micro
 * model's F32 GGUF), threads (1), float32 attention and sampling (Llama 3.1's defaults, one seed; the
 * stops banned so both decode DECODE_TOKENS), in interleaved rounds, each as its caller sees it: tokens
 * ÷ the generate call's wall time, the prompt already cached on both sides.
 * `llamacppTopDecidedShare`: of our steps, the share the sampler decided from the largest logits alone
 * (the rest handed over the whole vocabulary's logits).
 */
import { MICRO_E2E_RENDER_OPTIONS } from '../scripts/micro-llama/e2e-cases';
import { ggufPath } from '../scripts/setup/gguf-models';
import type { GenerateRequest } from '../src/engine/contract';
import { renderIds } from '../src/format/render';
import { END_OF_TEXT, EOM, EOT } from '../src/format/special-tokens';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import { startLlamaServer } from '../tests/support/llama-server';
import type { LogitsBackend, Pick } from '../worker/backends/backend';
import { createLlamaCppBackend } from '../worker/backends/llamacpp-backend';
import { createNodeEngine } from '../worker/create-node-engine';
import { Engine } from '../worker/engine';
import type { TopLogits } from '../worker/sampler';
import { interleave, median, round, timed } from './measure';
import { FLOAT32_SERVER_ARGS } from './remote';

const DECODE_TOKENS = 128;
const ROUNDS = 7;
const NO_GPU = async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null });

export async function llamacppVsServerDecode(rounds = ROUNDS): Promise<{ llamacppVsServerDecode: number; llamacppTopDecidedShare: number }> {
  const tokenizer = loadTokenizer();
  const tokens = renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages: [{ role: 'user', content: 'Tell me a long story about the sea.' }] }, tokenizer);
  const request: GenerateRequest = { tokens, maxTokens: DECODE_TOKENS, sampling: { seed: 7 }, logitsProcessors: [{ type: 'ban', tokens: [EOM, EOT, END_OF_TEXT] }] };
  const server = await startLlamaServer({ args: FLOAT32_SERVER_ARGS, threads: 1 });
  const served = createNodeEngine();
  const counts = { decided: 0, offered: 0 };
  const ours = new Engine({
    models: [],
    capabilities: NO_GPU,
    createBackend: async () => countingTop(await createLlamaCppBackend({ modelPath: ggufPath('micro-llama', 'F32'), contextSize: 1024, threads: 1, float32Attention: true }), counts),
  });
  try {
    await Promise.all([served.load({ kind: 'server', url: server.url }), ours.load({ kind: 'gguf', path: ggufPath('micro-llama', 'F32') })]);
    for (const engine of [served, ours]) {
      const warm = await engine.generate(request);
      if (warm.tokens.length !== DECODE_TOKENS) throw new Error(`a decode run gave ${warm.tokens.length} tokens, not ${DECODE_TOKENS}`);
    }
    const ms = await interleave(rounds, {
      llamaServer: () => timed(() => served.generate(request)),
      llamacpp: () => timed(() => ours.generate(request)),
    });
    if (counts.offered === 0) throw new Error('the llamacpp backend was never offered the largest logits');
    return {
      llamacppVsServerDecode: round(median(ms.llamaServer) / median(ms.llamacpp)),
      llamacppTopDecidedShare: round(counts.decided / counts.offered),
    };
  } finally {
    await Promise.all([served.unload(), ours.unload()]);
    await server.stop();
  }
}

/** The backend, counting the picks offered the largest logits and those they decided. */
function countingTop(backend: LogitsBackend, counts: { decided: number; offered: number }): LogitsBackend {
  const step = backend.step.bind(backend);
  backend.step = (ids: readonly number[], pick: Pick) => {
    const fromTop = pick.fromTop;
    if (!fromTop) return step(ids, pick);
    const counted: Pick = Object.assign((logits: Float32Array) => pick(logits), {
      fromTop: (top: TopLogits) => {
        const id = fromTop(top);
        counts.offered++;
        if (id !== null) counts.decided++;
        return id;
      },
    });
    return step(ids, counted);
  };
  return backend;
}
