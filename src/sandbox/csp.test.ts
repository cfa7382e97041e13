import { describe, expect, it } from 'vitest';
import { cspSource, sandboxCsp } from './csp';

describe('sandboxCsp', () => {
  it('allows only the bootstrap, the two Pyodide modules, wasm and a data: worker; connects nowhere', () => {
    expect(sandboxCsp({ indexUrl: 'http://127.0.0.1:5173/pyodide/', nonce: 'abc123' })).toBe(
      "default-src 'none'; script-src 'nonce-abc123' http://127.0.0.1:5173/pyodide/pyodide.mjs http://127.0.0.1:5173/pyodide/pyodide.asm.mjs 'wasm-unsafe-eval'; " +
        "worker-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'",
    );
  });

  it('refuses nonces that could inject directives', () => {
    expect(() => sandboxCsp({ indexUrl: 'https://a.example/p/', nonce: "x'; script-src *" })).toThrow(/nonce/);
  });
});

describe('cspSource', () => {
  const cases: Record<string, { input: string; expected: string }> = {
    'keeps origin and path': { input: 'https://a.example:8443/py/dir/', expected: 'https://a.example:8443/py/dir/' },
    'drops query and fragment': { input: 'https://a.example/p/?x=1#y', expected: 'https://a.example/p/' },
    'encodes what would end a source or a directive': { input: "https://a.example/a b;c,d'e/", expected: 'https://a.example/a%20b%3Bc%2Cd%27e/' },
  };
  for (const [name, { input, expected }] of Object.entries(cases)) it(name, () => expect(cspSource(input)).toBe(expected));

  it('refuses other schemes', () => expect(() => cspSource('data:text/plain,x')).toThrow(/must be http/));
});
