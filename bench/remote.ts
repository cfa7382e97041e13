/**
 * Section `remote`: a real llama-server (built here, the micro model's F32 GGUF, float32 attention,
 * one thread) as the engine.
 * - appendedTokens / serverPrefilled: over steps 2–5 of the five-step tool loop the server runs
 *   (server-tool-loop.ts), the ids each prompt appends vs what llama-server reports it evaluated
 *   (`timings.prompt_n`). Throws unless equal: the server prefills only what was appended.
 * - greedyAgreement: the fraction of the micro model's end-to-end prompts (both steps of every
 *   e2e case) whose greedy ids, stop id included, are identical on llama-server, node-llama-cpp and
 *   ONNX. Throws unless 1.
 * - decodeRatio: llama-server's decode tok/s ÷ our Node engine's (ONNX, our sampler) on the same
 *   weights, in interleaved rounds, as the loop sees it (tokens ÷ the generate call's wall time).
 * - llamaServerBuildS: how long this machine took to build llama-server (its build.json).
 */
import { readLlamaServerBuild } from '../scripts/llama-server/llama-server-build';
import { MICRO_E2E_CASES, MICRO_E2E_RENDER_OPTIONS } from '../scripts/micro-llama/e2e-cases';
import { ggufPath } from '../scripts/setup/gguf-models';
import type { GenerateRequest } from '../src/engine/contract';
import { MODELS } from '../src/engine/models';
import { renderIds } from '../src/format/render';
import { END_OF_TEXT, EOM, EOT } from '../src/format/special-tokens';
import { loadTokenizer } from '../src/format/tokenizer/load-node';
import type { Message, TextTokenizer } from '../src/format/types';
import { startLlamaServer } from '../tests/support/llama-server';
import type { BackendFactory } from '../worker/backends/backend';
import { createLlamaCppBackend } from '../worker/backends/llamacpp-backend';
import type { RemoteOutcome } from '../worker/backends/remote-backend';
import { createNodeEngine, nodeBackendFactory } from '../worker/create-node-engine';
import { Engine } from '../worker/engine';
import { interleave, median, round, timed } from './measure';
import type { BenchSection } from './section';
import { runServerToolLoop, type ServerLoopStep } from './server-tool-loop';

const DECODE_TOKENS = 64;
const ROUNDS = 5;
const GREEDY_MAX_TOKENS = 96;
const NO_GPU = async () => ({ webgpu: false, shaderF16: false, adapter: null, limits: null });
/** Float32 throughout, as ONNX computes (the cross-implementation test's settings). */
export const FLOAT32_SERVER_ARGS = ['-ctk', 'f32', '-ctv', 'f32', '-fa', 'off'];

export const remoteSection: BenchSection = {
  name: 'remote',
  summary: 'llama-server as the engine: prefill of the 5-step tool loop by its own report, greedy agreement with node-llama-cpp and ONNX, decode tok/s vs ours',
  async run() {
    const build = await readLlamaServerBuild();
    if (!build) throw new Error('llama-server is not built: npm run build:llama-server');
    const tokenizer = loadTokenizer();
    const server = await startLlamaServer({ args: FLOAT32_SERVER_ARGS });
    const served = recordingServerEngine();
    const ours = createNodeEngine();
    const nlc = new Engine({ models: [], capabilities: NO_GPU, createBackend: async () => createLlamaCppBackend({ modelPath: ggufPath('micro-llama', 'F32'), contextSize: 1024, threads: 1, float32Attention: true }) });
    try {
      await Promise.all([served.engine.load({ kind: 'server', url: server.url }), ours.load(MODELS.find((m) => m.demo)!.id), nlc.load({ kind: 'gguf', path: ggufPath('micro-llama', 'F32') })]);

      const steps = await runServerToolLoop(served.engine, tokenizer);
      const prefill = serverPrefill(steps, served.outcomes);

      const agreement = await greedyAgreement({ llamaServer: served.engine, nodeLlamaCpp: nlc, onnx: ours }, tokenizer);
      if (agreement.fraction !== 1) throw new Error(`greedy ids differ on ${agreement.differing.join('; ')}`);

      const decode = decodeRequest(tokenizer);
      const ms = await interleave(ROUNDS, {
        llamaServer: () => timed(() => served.engine.generate(decode)),
        ours: () => timed(() => ours.generate(decode)),
      });
      const tokPerS = (samples: number[]) => DECODE_TOKENS / (median(samples) / 1000);
      return {
        appendedTokens: prefill.appendedTokens,
        serverPrefilled: prefill.serverPrefilled,
        greedyAgreement: agreement.fraction,
        decodeRatio: round(tokPerS(ms.llamaServer) / tokPerS(ms.ours)),
        llamaServerBuildS: round(build.buildSeconds),
      };
    } finally {
      await Promise.all([served.engine.unload(), ours.unload(), nlc.unload()]);
      await server.stop();
    }
  },
};

/** An engine on the Node factory whose remote backend's every outcome (the server's own report) is kept, in order. */
export function recordingServerEngine(): { engine: Engine; outcomes: RemoteOutcome[] } {
  const outcomes: RemoteOutcome[] = [];
  const factory = nodeBackendFactory();
  const recording: BackendFactory = async (ctx) => {
    const backend = await factory(ctx);
    if (backend.kind !== 'sampling') throw new Error('expected an engine server');
    return {
      kind: 'sampling',
      device: backend.device,
      ...(backend.contextWindow !== undefined ? { contextWindow: backend.contextWindow } : {}),
      generate: async (request, onIds, signal) => {
        const outcome = (await backend.generate(request, onIds, signal)) as RemoteOutcome;
        outcomes.push(outcome);
        return outcome;
      },
      dispose: () => backend.dispose(),
    };
  };
  return { engine: new Engine({ models: [], capabilities: NO_GPU, createBackend: recording }), outcomes };
}

/**
 * Steps 2–5: the ids appended and what the server says it evaluated (one request per step: the loop
 * forces nothing). Throws unless they are equal, step by step, and agree with the reuse it reported.
 */
export function serverPrefill(steps: readonly ServerLoopStep[], outcomes: readonly RemoteOutcome[]): { appendedTokens: number; serverPrefilled: number } {
  if (outcomes.length !== steps.length) throw new Error(`${steps.length} steps made ${outcomes.length} server requests`);
  let appendedTokens = 0;
  let serverPrefilled = 0;
  for (let i = 1; i < steps.length; i++) {
    const evaluated = outcomes[i]!.evaluatedTokens;
    if (evaluated === null) throw new Error(`step ${i + 1}: the server did not report what it evaluated`);
    if (evaluated !== steps[i]!.appended || steps[i]!.stats.prefilledTokens !== evaluated) {
      throw new Error(`step ${i + 1}: ${steps[i]!.appended} ids appended, the server evaluated ${evaluated} (and reported reusing ${steps[i]!.stats.reusedTokens})`);
    }
    appendedTokens += steps[i]!.appended;
    serverPrefilled += evaluated;
  }
  return { appendedTokens, serverPrefilled };
}

/** Every end-to-end prompt of the micro model: each case's first step and, after a call, its second (built from ONNX's ids). */
async function greedyAgreement(engines: Record<'llamaServer' | 'nodeLlamaCpp' | 'onnx', Engine>, tokenizer: TextTokenizer): Promise<{ fraction: number; differing: string[] }> {
  const greedy = async (engine: Engine, tokens: number[]) => {
    const r = await engine.generate({ tokens, sampling: { temperature: 0 }, maxTokens: GREEDY_MAX_TOKENS });
    return r.stopId === null ? r.tokens : [...r.tokens, r.stopId];
  };
  const differing: string[] = [];
  let prompts = 0;
  const compare = async (name: string, tokens: number[]): Promise<number[]> => {
    prompts++;
    const [onnx, nodeLlamaCpp, llamaServer] = [await greedy(engines.onnx, tokens), await greedy(engines.nodeLlamaCpp, tokens), await greedy(engines.llamaServer, tokens)];
    const same = (a: number[]) => a.length === onnx.length && a.every((id, i) => id === onnx[i]);
    if (!same(nodeLlamaCpp) || !same(llamaServer)) differing.push(name);
    return onnx;
  };
  for (const c of MICRO_E2E_CASES) {
    const messages: Message[] = [{ role: 'user', content: c.question }];
    const render = () => renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages }, tokenizer);
    const first = await compare(`${c.name}, step 1`, render());
    if (!c.call || first.at(-1) !== EOM) continue;
    const emitted = first.slice(0, -1);
    messages.push({ role: 'assistant', content: '', raw: tokenizer.decode(emitted), ids: emitted, stop: 'eom' }, { role: 'ipython', content: c.result ?? '' });
    await compare(`${c.name}, step 2`, render());
  }
  return { fraction: (prompts - differing.length) / prompts, differing };
}

/** A decode of exactly DECODE_TOKENS ids (the stops banned) after the micro model's usual prompt. */
function decodeRequest(tokenizer: TextTokenizer): GenerateRequest {
  const tokens = renderIds({ ...MICRO_E2E_RENDER_OPTIONS, messages: [{ role: 'user', content: 'Hello!' }] }, tokenizer);
  return { tokens, maxTokens: DECODE_TOKENS, sampling: { temperature: 0 }, logitsProcessors: [{ type: 'ban', tokens: [EOM, EOT, END_OF_TEXT] }] };
}
