import { expect, it } from 'vitest';
import { formatBytes, formatDuration } from './format-units';
import { ProgressTracker } from './load-progress';

it.each([
  [0, '0 B'],
  [999, '999 B'],
  [1536, '1.5 KB'],
  [33_000_000, '33.0 MB'],
  [4_520_000_000, '4.5 GB'],
  [-1, '?'],
])('formatBytes(%s) = %s', (bytes, expected) => expect(formatBytes(bytes)).toBe(expected));

it.each([
  [0.2, 'under a second'],
  [42, '42 s'],
  [75, '1 min 15 s'],
  [120, '2 min'],
  [4000, '1 h 6 min'],
])('formatDuration(%s) = %s', (s, expected) => expect(formatDuration(s)).toBe(expected));

it('progress: bytes, percent that never goes down, an ETA once a rate is known', () => {
  const t = new ProgressTracker();
  expect(t.update({ loadedBytes: 0, totalBytes: 10_000_000, text: '' }, 0)).toEqual({ percent: 0, label: '0 B of 10.0 MB · 0%' });
  const second = t.update({ loadedBytes: 2_000_000, totalBytes: 10_000_000, text: '' }, 1000);
  expect(second).toEqual({ percent: 20, label: '2.0 MB of 10.0 MB · 20% · about 4 s left' });
  // A new file discovered: the total grows, the raw fraction drops, the bar does not.
  expect(t.update({ loadedBytes: 2_000_000, totalBytes: 20_000_000, text: '' }, 1100).percent).toBe(20);
  expect(t.update({ loadedBytes: 5, totalBytes: 0, text: '' }, 1200)).toEqual({ percent: null, label: '5 B' });
});
