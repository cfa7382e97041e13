import { describe, expect, it } from 'vitest';
import { EngineError } from '../engine/errors';
import { MODELS } from '../engine/models';
import { diagnoseLoadFailure, isNetworkFailure, type LoadFailureFacts } from './load-diagnosis';

const model = (id: string) => MODELS.find((m) => m.id === id)!;
const fetchFailed = new EngineError('load_failed', 'Failed to fetch');
const base: Omit<LoadFailureFacts, 'error'> = { model: model('Llama-3.2-1B-Instruct-q4f16_1-MLC'), hosts: {}, online: true, models: MODELS };

describe('diagnoseLoadFailure', () => {
  const cases: Record<string, { facts: Partial<LoadFailureFacts>; cause: string; title: RegExp; advice: RegExp; host?: string }> = {
    offline: {
      facts: { error: fetchFailed, online: false, hosts: { 'huggingface.co': 'unreachable', 'raw.githubusercontent.com': 'unreachable' } },
      cause: 'offline',
      title: /^This browser is offline\.$/,
      advice: /come from huggingface\.co and raw\.githubusercontent\.com: reconnect .* Models served by this site \(Micro Llama \(offline demo\), Tiny test model \(random weights\)\)/,
    },
    'an unreachable host, named': {
      facts: { error: fetchFailed, hosts: { 'huggingface.co': 'unreachable', 'raw.githubusercontent.com': 'ok' } },
      cause: 'unreachable',
      host: 'huggingface.co',
      title: /^huggingface\.co could not be reached\.$/,
      advice: /firewall, a proxy or a browser extension/,
    },
    "blocked by the page's CSP, with the directive": {
      facts: { error: fetchFailed, hosts: { 'huggingface.co': 'ok', 'raw.githubusercontent.com': 'csp' } },
      cause: 'csp',
      host: 'raw.githubusercontent.com',
      title: /Content-Security-Policy blocks raw\.githubusercontent\.com/,
      advice: /connect-src must allow https:\/\/raw\.githubusercontent\.com/,
    },
    'a download that broke off while the hosts answer': {
      facts: { error: fetchFailed, hosts: { 'huggingface.co': 'ok', 'raw.githubusercontent.com': 'ok' } },
      cause: 'network',
      title: /^The download of Llama 3\.2 1B Instruct \(q4f16\) \(710 MB\) broke off\.$/,
      advice: /press Load to try again/,
    },
    'not enough GPU memory': {
      facts: { error: new EngineError('insufficient_memory', 'Out of memory while allocating') },
      cause: 'gpu_memory',
      title: /^Not enough GPU memory for Llama 3\.2 1B Instruct \(q4f16\) \(it needs about 0\.9 GB\)\.$/,
      advice: /Close other tabs .* smaller model/,
    },
    'no shader-f16: the q4f32 variant is named': {
      facts: { error: new EngineError('shader_f16_unsupported', 'needs shader-f16') },
      cause: 'shader_f16',
      title: /lacks shader-f16, which Llama 3\.2 1B Instruct \(q4f16\) needs/,
      advice: /^Pick Llama 3\.2 1B Instruct \(q4f32\): the same model with 32-bit kernels\.$/,
    },
    'anything else keeps its own words': {
      facts: { error: new EngineError('webgpu_unavailable', 'no adapter') },
      cause: 'other',
      title: /WebGPU is not available/,
      advice: /recent Chrome or Edge/,
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const d = diagnoseLoadFailure({ ...base, error: fetchFailed, ...c.facts });
      expect(d.cause).toBe(c.cause);
      expect(d.title).toMatch(c.title);
      expect(d.advice).toMatch(c.advice);
      expect(d.host).toBe(c.host);
    });
  }

  it('never advises a smaller model for a network failure, nor the connection for a memory failure', () => {
    for (const cause of ['offline', 'an unreachable host, named', "blocked by the page's CSP, with the directive", 'a download that broke off while the hosts answer']) {
      expect(diagnoseLoadFailure({ ...base, error: fetchFailed, ...cases[cause]!.facts }).advice).not.toMatch(/smaller model/);
    }
    expect(diagnoseLoadFailure({ ...base, ...cases['not enough GPU memory']!.facts } as LoadFailureFacts).advice).not.toMatch(/connection/);
  });

  it('tells a network failure from others', () => {
    expect(isNetworkFailure(fetchFailed)).toBe(true);
    expect(isNetworkFailure(new EngineError('load_failed', 'could not load tiny-llama on webgpu: shader compile failed'))).toBe(false);
    expect(isNetworkFailure(new EngineError('insufficient_memory', 'download of buffer failed'))).toBe(false);
  });
});
