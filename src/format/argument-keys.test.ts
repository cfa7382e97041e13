import { describe, expect, it } from 'vitest';
import { findForbiddenKey } from './argument-keys';
import { parseBuiltinCalls } from './builtin-calls';
import { parseCallBlock } from './custom-calls';

/** Every way a model writes arguments, each smuggling a key that would change an object's prototype. */
const CUSTOM_BLOCKS: Record<string, { text: string; path: string }> = {
  'JSON parameters': { text: '{"name": "set_profile", "parameters": {"__proto__": {"isAdmin": true}}}', path: '__proto__' },
  'JSON arguments as a string': { text: '{"name": "set_profile", "arguments": "{\\"constructor\\": {\\"prototype\\": {\\"isAdmin\\": true}}}"}', path: 'constructor' },
  'nested in an array': { text: '{"name": "set_profile", "parameters": {"items": [{"a": 1}, {"prototype": 1}]}}', path: 'items[1].prototype' },
  'OpenAI-style wrapper': { text: '{"type": "function", "function": {"name": "set_profile", "parameters": {"opts": {"__proto__": {"isAdmin": true}}}}}', path: 'opts.__proto__' },
  'a list of JSON calls': { text: '[{"name": "ok", "parameters": {}}, {"name": "set_profile", "parameters": {"__proto__": {}}}]', path: '__proto__' },
  '<function=> tag': { text: '<function=set_profile>{"__proto__": {"isAdmin": true}}</function>', path: '__proto__' },
  'Python literal read after JSON failed': { text: "{'name': 'set_profile', 'parameters': {'__proto__': {'isAdmin': True}}}", path: '__proto__' },
  'Python list of calls, keyword': { text: '[set_profile(__proto__={"isAdmin": True})]', path: '__proto__' },
  'Python list of calls, nested dict': { text: '[set_profile(opts={"constructor": 1})]', path: 'constructor' },
};

describe('argument keys that would change a prototype never make a call', () => {
  for (const [name, c] of Object.entries(CUSTOM_BLOCKS)) {
    it(name, () => {
      const r = parseCallBlock(c.text, 0);
      expect(r.kind).toBe('broken');
      if (r.kind !== 'broken') return;
      expect(r.error).toMatch(/^argument key ".*" is not allowed: keys named __proto__, constructor or prototype are refused/);
      expect(r.error).toContain(JSON.stringify(c.path.split(/[.[]/).at(-1)!.replace(/\]$/, '')).slice(1, -1));
      expect(r.name).toBe('set_profile');
    });
  }

  for (const text of ['brave_search.call(query="x", __proto__={"isAdmin": True})', 'wolfram_alpha.call(input={"prototype": 1})']) {
    it(`built-in call: ${text}`, () => {
      const r = parseBuiltinCalls(text);
      expect(r).toMatchObject({ ok: false, known: true, error: expect.stringMatching(/^argument key "(__proto__|prototype)" is not allowed/) });
    });
  }

  it('other keys (including look-alikes) are untouched', () => {
    const r = parseCallBlock('{"name": "f", "parameters": {"proto": 1, "__proto": 2, "Constructor": 3, "prototypes": [4]}}', 0);
    expect(r).toEqual({ kind: 'calls', calls: [{ kind: 'custom', name: 'f', arguments: { proto: 1, __proto: 2, Constructor: 3, prototypes: [4] } }] });
  });
});

describe('findForbiddenKey', () => {
  it('finds own keys at any depth, and nothing in plain data', () => {
    expect(findForbiddenKey(JSON.parse('{"a": {"b": [0, {"__proto__": 1}]}}'))).toBe('a.b[1].__proto__');
    expect(findForbiddenKey({ a: [1, 'constructor', { c: null }] })).toBeNull();
    expect(findForbiddenKey('__proto__')).toBeNull();
  });
});
