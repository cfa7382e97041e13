import { describe, expect, it } from 'vitest';
import { readRequestTarget } from './request-target';

const P = '/api/tools/';

describe('readRequestTarget', () => {
  const cases: Record<string, { raw: string; kind: 'elsewhere' | 'refused' | 'tool'; endpoint?: string; q?: string | null }> = {
    'plain path': { raw: '/api/tools/brave_search?q=a+b', kind: 'tool', endpoint: 'brave_search', q: 'a b' },
    'no query': { raw: '/api/tools/brave_search', kind: 'tool', endpoint: 'brave_search', q: null },
    "the query as sent: encodeURIComponent leaves '()!~* as they are": { raw: "/api/tools/brave_search?q=it's%20(a)!~*", kind: 'tool', q: "it's (a)!~*" },
    'outside the prefix': { raw: '/index.html', kind: 'elsewhere' },
    'prefix without its slash': { raw: '/api/toolsbrave_search', kind: 'elsewhere' },
    'dot segments that leave the prefix are not ours': { raw: '/api/tools/../../index.html', kind: 'elsewhere' },
    'an encoded slash is not a slash': { raw: '/api%2Ftools/brave_search', kind: 'elsewhere' },
    '/./ before the prefix': { raw: '/./api/tools/brave_search?q=x', kind: 'refused' },
    '/x/../ before the prefix': { raw: '/x/../api/tools/brave_search?q=x', kind: 'refused' },
    '%2e as a dot segment': { raw: '/%2e/api/tools/brave_search?q=x', kind: 'refused' },
    '%2E%2E as a dot-dot segment': { raw: '/x/%2E%2E/api/tools/brave_search?q=x', kind: 'refused' },
    'a dot segment inside the prefix': { raw: '/api/./tools/brave_search?q=x', kind: 'refused' },
    'a dot segment after the prefix': { raw: '/api/tools/./brave_search?q=x', kind: 'refused' },
    'a backslash read as a slash': { raw: '/api\\tools/brave_search?q=x', kind: 'refused' },
    'absolute form': { raw: 'http://127.0.0.1/api/tools/brave_search?q=x', kind: 'refused' },
    'absolute form with another host': { raw: 'http://evil.example:80/api/tools/wolfram_alpha?input=x', kind: 'refused' },
    'absolute form elsewhere is not ours': { raw: 'http://127.0.0.1/index.html', kind: 'elsewhere' },
    'a fragment': { raw: '/api/tools/brave_search?q=x#y', kind: 'refused' },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const t = readRequestTarget(c.raw, P);
      expect(t.kind).toBe(c.kind);
      if (t.kind === 'tool') {
        if (c.endpoint) expect(t.endpoint).toBe(c.endpoint);
        if (c.q !== undefined) expect(t.params.get('q')).toBe(c.q);
      }
      if (t.kind === 'refused') expect(t.reason).toMatch(/absolute-form|written plainly/);
    });
  }

  it('a malformed target that names the prefix is refused; any other is left to the server', () => {
    for (const raw of ['//api/tools/brave_search', '/api/tools/brave_search?q=%E0%A4%A', '/api\\tools/brave_search?q=%zz', 'http://[/api/tools/brave_search']) {
      expect(readRequestTarget(raw, P, 'GET'), raw).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/request (target|path)/) });
    }
    for (const raw of ['//[', 'http://[', '/index.html%E0%A4%A', '*']) expect(readRequestTarget(raw, P, 'GET').kind, raw).toBe('elsewhere');
    expect(readRequestTarget('*', P, 'OPTIONS').kind).toBe('elsewhere');
  });
});
