import { describe, expect, it } from 'vitest';
import { oncePerUrl } from './once-per-url';

describe('oncePerUrl', () => {
  it('loads each URL once and gives every caller the same promise', async () => {
    const calls: string[] = [];
    const load = oncePerUrl(async (url: string) => {
      calls.push(url);
      return `${url} loaded`;
    });
    const [a, b] = [load('https://a.example/x'), load('https://a.example/x')];
    expect(a).toBe(b);
    expect(await a).toBe('https://a.example/x loaded');
    expect(await load('https://b.example/y')).toBe('https://b.example/y loaded');
    expect(calls).toEqual(['https://a.example/x', 'https://b.example/y']);
  });

  it('forgets a failed load, so the next call tries again', async () => {
    let attempt = 0;
    const load = oncePerUrl(async (url: string) => {
      attempt += 1;
      if (attempt === 1) throw new Error(`${url} is down`);
      return attempt;
    });
    await expect(load('https://a.example/x')).rejects.toThrow('https://a.example/x is down');
    expect(await load('https://a.example/x')).toBe(2);
    expect(await load('https://a.example/x')).toBe(2);
    expect(attempt).toBe(2);
  });
});
