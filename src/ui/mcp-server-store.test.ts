import { describe, expect, it } from 'vitest';
import { localMcpServerStore } from './mcp-server-store';

/** The part of Storage the store uses, in memory. */
function memoryStorage(initial: Record<string, string> = {}): Storage {
  const items = new Map(Object.entries(initial));
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) } as Storage;
}

describe('the MCP servers kept in this browser', () => {
  it('saves and loads each server URL with the tools turned off (and nothing else, no token)', () => {
    const storage = memoryStorage();
    const store = localMcpServerStore('k', storage);
    expect(store.load()).toEqual([]);
    store.save([{ url: 'https://a.example/mcp', disabledTools: ['order_cake'] }]);
    expect(store.load()).toEqual([{ url: 'https://a.example/mcp', disabledTools: ['order_cake'] }]);
    expect(storage.getItem('k')).toBe('[{"url":"https://a.example/mcp","disabledTools":["order_cake"]}]');
  });

  it('reads a stored value that does not parse, or has the wrong shape, as no servers', () => {
    expect(localMcpServerStore('k', memoryStorage({ k: '{not json' })).load()).toEqual([]);
    expect(localMcpServerStore('k', memoryStorage({ k: '[{"url": 3}]' })).load()).toEqual([]);
    expect(localMcpServerStore('k', null).load()).toEqual([]);
  });
});
