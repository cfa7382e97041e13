import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { wolframText, type BraveWolframFake, type FakeMode } from '../../tests/fakes/brave-wolfram-fake';
import { startProxiedFake, type ProxiedFake } from '../../tests/fakes/proxied-fake';
import { startToolProxyServer, type ToolProxyServer } from '../server/tool-proxy';
import { ToolError } from './tool';
import { wolframAlphaTool, type WolframAlphaOptions } from './wolfram-alpha';

let upstreams: ProxiedFake;
let fake: BraveWolframFake;
let proxy: ToolProxyServer;
let keyless: ToolProxyServer;

beforeAll(async () => {
  upstreams = await startProxiedFake();
  ({ fake, proxy, keyless } = upstreams);
});
afterAll(() => upstreams.close());
beforeEach(() => fake.reset());

const ask = (query: unknown, options: WolframAlphaOptions = {}, signal = new AbortController().signal) =>
  wolframAlphaTool({ proxyBase: proxy.toolsBase, ...options }).execute({ query }, { signal });

describe('wolfram_alpha', () => {
  it("returns the LLM API's text as is", async () => {
    expect(await ask('population of Reykjavik')).toBe(wolframText('population of Reykjavik'));
    expect(fake.requests[0]!.query).toEqual({ input: 'population of Reykjavik', appid: fake.wolframAppId });
  });

  it('passes maxChars as maxchars', async () => {
    await ask('pi', { maxChars: 1200 });
    expect(fake.requests[0]!.query.maxchars).toBe('1200');
  });

  it('has the built-in shape', () => {
    expect(wolframAlphaTool()).toMatchObject({
      name: 'wolfram_alpha',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      needsConfirmation: true,
    });
  });

  const failures: Record<string, { mode?: FakeMode; keyless?: boolean; message: RegExp; details: Record<string, unknown> }> = {
    'no app id: the setup hint': {
      keyless: true,
      message: /^Wolfram\|Alpha is not configured: WOLFRAM_APP_ID is not set$/,
      details: { setup: 'set WOLFRAM_APP_ID in the environment of the dev/preview server' },
    },
    'bad app id': { mode: 'unauthorized', message: /the API key was rejected/, details: { status: 403, detail: 'Error 1: Invalid appid' } },
    'input not understood': { mode: 'not-understood', message: /could not interpret the input/, details: { status: 501 } },
    'rate limited': { mode: 'rate-limited', message: /rate limited/, details: { status: 429 } },
    'upstream error': { mode: 'server-error', message: /^upstream error/, details: { status: 500 } },
    timeout: { mode: 'slow', message: /did not answer within 300 ms/, details: { status: 504 } },
  };
  for (const [name, c] of Object.entries(failures)) {
    it(name, async () => {
      if (c.mode) fake.setMode('wolfram', c.mode);
      const error = await ask('x', c.keyless ? { proxyBase: keyless.toolsBase } : {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toMatch(c.message);
      expect((error as ToolError).details).toMatchObject(c.details);
    });
  }

  it('an abort mid-request rejects with AbortError', async () => {
    fake.setMode('wolfram', 'slow');
    const slow = await startToolProxyServer(fake.proxyOptions());
    try {
      const controller = new AbortController();
      const pending = ask('x', { proxyBase: slow.toolsBase }, controller.signal);
      await expect.poll(() => fake.requests.length).toBe(1);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      await expect.poll(() => fake.requests[0]?.clientClosedEarly).toBe(true);
    } finally {
      await slow.close();
    }
  });
});
