import { describe, expect, it } from 'vitest';
import { frameDocument } from './sandbox-frame';

describe('frameDocument', () => {
  it('puts the CSP first and the bootstrap in one nonce’d script', () => {
    const html = frameDocument(`default-src 'none'; script-src 'nonce-n1'`, 'n1');
    const [csp, script] = [html.indexOf('Content-Security-Policy'), html.indexOf('<script nonce="n1">')];
    expect(csp).toBeGreaterThan(0);
    expect(script).toBeGreaterThan(csp);
    expect(html).toContain(`content="default-src 'none'; script-src 'nonce-n1'"`);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toMatch(/<script nonce="n1">\(function frameBootstrap\(\)[\s\S]*\)\(\)<\/script>$/);
  });

  it('escapes the policy as an attribute value', () => {
    expect(frameDocument('a"b<c&d', 'n')).toContain('content="a&quot;b&lt;c&amp;d"');
  });
});
