import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxiedFake, type ProxiedFake } from '../../tests/fakes/proxied-fake';
import { braveSearchTool } from './brave-search';
import { LocalSearchIndex } from './local-search';
import { proxyServicesOnce } from './proxy-services';
import type { ToolProvider } from './tool-provider';
import { wolframAlphaTool } from './wolfram-alpha';

let upstreams: ProxiedFake;
beforeAll(async () => void (upstreams = await startProxiedFake()));
afterAll(() => upstreams.close());
beforeEach(() => upstreams.fake.reset());

const signal = () => new AbortController().signal;
const index = new LocalSearchIndex([{ title: 'Japan - Wikipedia', url: 'https://en.wikipedia.org/wiki/Japan', text: 'The capital of Japan is Tokyo.' }]);
const LOCAL_SEARCH = { query: 'capital of Japan', source: 'local index', results: [{ title: 'Japan - Wikipedia', url: 'https://en.wikipedia.org/wiki/Japan', description: 'The capital of Japan is Tokyo.' }] };
const LOCAL_MATH = 'Query:\n"123 * 45"\n\nInput:\n123×45\n\nResult:\n5535';

/** The two tools against one proxy base (or one fetch), with the local providers on. */
function tools(provider: ToolProvider | undefined, target: { proxyBase?: string; fetch?: typeof fetch }) {
  return {
    search: braveSearchTool({ ...target, localIndex: async () => index, ...(provider ? { provider } : {}) }),
    math: wolframAlphaTool({ ...target, localMath: true, ...(provider ? { provider } : {}) }),
  };
}
const staticHost404 = (async () => new Response('<!doctype html><title>Not found</title>', { status: 404, headers: { 'content-type': 'text/html' } })) as typeof fetch;
const unreachable = (async () => {
  throw new TypeError('fetch failed');
}) as typeof fetch;

/** The global fetch, noting the path of every request. */
function recordingFetch(): { asked: string[]; recording: typeof fetch } {
  const asked: string[] = [];
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    asked.push(new URL(String(input)).pathname);
    return fetch(input, init);
  }) as typeof fetch;
  return { asked, recording };
}

describe('who answers brave_search and wolfram_alpha', () => {
  it('auto: a proxy without keys → answered on this device, from the local index and by local math', async () => {
    const { search, math } = tools(undefined, { proxyBase: upstreams.keyless.toolsBase });
    expect(await search.execute({ query: 'capital of Japan' }, { signal: signal() })).toEqual(LOCAL_SEARCH);
    expect(await math.execute({ query: '123 * 45' }, { signal: signal() })).toBe(LOCAL_MATH);
  });

  it('auto: no proxy at all (a static host, or nothing listening) → answered on this device', async () => {
    for (const fetch of [staticHost404, unreachable]) {
      const { search, math } = tools('auto', { fetch });
      expect(await search.execute({ query: 'capital of Japan' }, { signal: signal() })).toEqual(LOCAL_SEARCH);
      expect(await math.execute({ query: '123 * 45' }, { signal: signal() })).toBe(LOCAL_MATH);
    }
  });

  it('auto: a configured service is used, and its failures stay failures (never silently local)', async () => {
    const { search, math } = tools('auto', { proxyBase: upstreams.proxy.toolsBase });
    const found = (await search.execute({ query: 'capital of Japan' }, { signal: signal() })) as { source?: string };
    expect(found.source).toBeUndefined();
    expect(upstreams.fake.requests).toHaveLength(1);
    upstreams.fake.setMode('wolfram', 'rate-limited');
    await expect(math.execute({ query: '123 * 45' }, { signal: signal() })).rejects.toThrow(/429|rate/i);
  });

  it('local: never asks the proxy and needs no confirmation (nothing leaves the device)', async () => {
    const { search, math } = tools('local', { fetch: unreachable });
    expect([search.needsConfirmation, math.needsConfirmation]).toEqual([false, false]);
    expect(search.description).toMatch(/on this device/);
    expect(await search.execute({ query: 'capital of Japan' }, { signal: signal() })).toEqual(LOCAL_SEARCH);
    expect(await math.execute({ query: '123 * 45' }, { signal: signal() })).toBe(LOCAL_MATH);
    expect(upstreams.fake.requests).toEqual([]);
  });

  it('service (and no local provider given): a proxy without keys is the "not configured" error, as before', async () => {
    const { search, math } = tools('service', { proxyBase: upstreams.keyless.toolsBase });
    await expect(search.execute({ query: 'x' }, { signal: signal() })).rejects.toThrow(/not configured/);
    await expect(math.execute({ query: 'x' }, { signal: signal() })).rejects.toThrow(/not configured/);
    await expect(braveSearchTool({ proxyBase: upstreams.keyless.toolsBase }).execute({ query: 'x' }, { signal: signal() })).rejects.toThrow(/not configured/);
    expect([search.needsConfirmation, math.needsConfirmation]).toEqual([true, true]);
  });

  it('auto: a proxy without keys is asked only where queries would go — the query itself is not sent to it', async () => {
    const { asked, recording } = recordingFetch();
    const { search, math } = tools('auto', { proxyBase: upstreams.keyless.toolsBase, fetch: recording });
    expect(await search.execute({ query: 'capital of Japan' }, { signal: signal() })).toEqual(LOCAL_SEARCH);
    expect(await math.execute({ query: '123 * 45' }, { signal: signal() })).toBe(LOCAL_MATH);
    expect(asked.every((p) => p.endsWith('/services'))).toBe(true);
    expect(asked.length).toBeGreaterThan(0);
  });

  it('tools given one services source ask the proxy where queries go once between them', async () => {
    const { asked, recording } = recordingFetch();
    const services = proxyServicesOnce(upstreams.keyless.toolsBase, recording);
    const search = braveSearchTool({ proxyBase: upstreams.keyless.toolsBase, fetch: recording, localIndex: async () => index, services });
    const math = wolframAlphaTool({ proxyBase: upstreams.keyless.toolsBase, fetch: recording, localMath: true, services });
    await search.execute({ query: 'capital of Japan' }, { signal: signal() });
    await math.execute({ query: '123 * 45' }, { signal: signal() });
    expect(await math.destination!(signal())).toEqual({ onDevice: true });
    expect(asked).toEqual([new URL(`${upstreams.keyless.toolsBase}services`).pathname]);
  });

  it('destination: on this device, or the service and its host, as the proxy reports it', async () => {
    const where = async (t: { destination?(s: AbortSignal): Promise<unknown> }) => t.destination!(signal());
    const keyless = tools('auto', { proxyBase: upstreams.keyless.toolsBase });
    expect([await where(keyless.search), await where(keyless.math)]).toEqual([{ onDevice: true }, { onDevice: true }]);
    const noProxy = tools('auto', { fetch: staticHost404 });
    expect(await where(noProxy.search)).toEqual({ onDevice: true });
    const configured = tools('auto', { proxyBase: upstreams.proxy.toolsBase });
    const host = new URL(upstreams.fake.proxyOptions().braveBase!).host;
    expect(await where(configured.search)).toEqual({ onDevice: false, service: 'Brave Search', host });
    expect(await where(configured.math)).toEqual({ onDevice: false, service: 'Wolfram|Alpha', host });
    expect(await where(tools('service', { fetch: unreachable }).search)).toEqual({ onDevice: false, service: 'Brave Search', host: null });
    expect(await where(tools('local', { fetch: unreachable }).math)).toEqual({ onDevice: true });
    expect(upstreams.fake.requests).toEqual([]);
  });

  it('says who answered, for the tool card: local math when answered here, nothing when the service answered', async () => {
    const sources: string[] = [];
    const reportSource = (s: string) => void sources.push(s);
    await tools('auto', { proxyBase: upstreams.keyless.toolsBase }).math.execute({ query: '123 * 45' }, { signal: signal(), reportSource });
    await tools('local', { fetch: unreachable }).math.execute({ query: '2 + 2' }, { signal: signal(), reportSource });
    expect(sources).toEqual(['local math', 'local math']);
    await tools('auto', { proxyBase: upstreams.proxy.toolsBase }).math.execute({ query: '123 * 45' }, { signal: signal(), reportSource });
    expect(sources).toHaveLength(2);
  });
});
