import { describe, expect, it } from 'vitest';
import { allowedOrigins, corsHeaders, crossSiteRefusal, type BrowserContext } from './cross-origin';

const HOST = '127.0.0.1:5173';

describe('crossSiteRefusal', () => {
  const cases: Record<string, { request: BrowserContext; allowed?: string[]; refused: boolean }> = {
    'no browser headers (curl, the CLI)': { request: { host: HOST }, refused: false },
    'the page itself': { request: { host: HOST, origin: `http://${HOST}`, secFetchSite: 'same-origin' }, refused: false },
    'a same-origin GET without Origin': { request: { host: HOST, secFetchSite: 'same-origin' }, refused: false },
    'typed into the address bar': { request: { host: HOST, secFetchSite: 'none' }, refused: false },
    'another localhost port (vite would reflect it)': { request: { host: HOST, origin: 'http://localhost:5174', secFetchSite: 'same-site' }, refused: true },
    'another site': { request: { host: HOST, origin: 'https://evil.example', secFetchSite: 'cross-site' }, refused: true },
    'an <img> from another site (no Origin)': { request: { host: HOST, secFetchSite: 'cross-site' }, refused: true },
    'an opaque origin (sandboxed frame)': { request: { host: HOST, origin: 'null', secFetchSite: 'cross-site' }, refused: true },
    'Origin without Sec-Fetch-Site': { request: { host: HOST, origin: 'https://evil.example' }, refused: true },
    'a listed origin': { request: { host: HOST, origin: 'https://host.example', secFetchSite: 'cross-site' }, allowed: ['https://host.example'], refused: false },
    'an unlisted origin next to a listed one': { request: { host: HOST, origin: 'https://evil.example', secFetchSite: 'cross-site' }, allowed: ['https://host.example'], refused: true },
    'any origin when the list is *': { request: { host: HOST, origin: 'https://any.example', secFetchSite: 'cross-site' }, allowed: ['*'], refused: false },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const refusal = crossSiteRefusal(c.request, c.allowed ?? []);
      if (c.refused) expect(refusal).toMatch(/refused: .*TOOL_PROXY_CORS_ORIGINS/);
      else expect(refusal).toBeNull();
    });
  }
});

describe('corsHeaders and the allow-list', () => {
  it('answers only a listed origin, or * when the list says so', () => {
    expect(corsHeaders('https://evil.example', ['https://host.example'])['access-control-allow-origin']).toBeUndefined();
    expect(corsHeaders('http://localhost:5174', [])['access-control-allow-origin']).toBeUndefined();
    expect(corsHeaders('https://host.example', ['https://host.example'])).toEqual({ 'access-control-allow-origin': 'https://host.example', vary: 'Origin' });
    expect(corsHeaders('https://any.example', ['*'])).toEqual({ 'access-control-allow-origin': '*' });
  });
  it('the list comes from the option, else TOOL_PROXY_CORS_ORIGINS, else is empty', () => {
    expect(allowedOrigins(['https://a.example'], { TOOL_PROXY_CORS_ORIGINS: 'https://b.example' })).toEqual(['https://a.example']);
    expect(allowedOrigins(undefined, { TOOL_PROXY_CORS_ORIGINS: ' https://a.example, https://b.example ,' })).toEqual(['https://a.example', 'https://b.example']);
    expect(allowedOrigins(undefined, {})).toEqual([]);
  });
});
