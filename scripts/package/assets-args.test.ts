import { describe, expect, it } from 'vitest';
import { AssetsUsageError, parseAssetsArgs } from './assets-args';

describe('llama-agent-assets arguments', () => {
  it('reads copy DIR and --micro', () => {
    expect(parseAssetsArgs(['copy', 'public/llama'])).toEqual({ dir: 'public/llama', micro: false });
    expect(parseAssetsArgs(['copy', '--micro', 'assets'])).toEqual({ dir: 'assets', micro: true });
  });

  it.each([
    [[], 'missing the command (copy)'],
    [['fetch', 'x'], 'unknown command "fetch" (expected copy)'],
    [['copy'], 'copy: missing the target folder'],
    [['copy', 'a', 'b'], 'copy: one folder expected, got a b'],
  ])('%j is refused: %s', (args, message) => {
    expect(() => parseAssetsArgs(args)).toThrow(new AssetsUsageError(message));
  });

  it('an unknown flag is refused in the words of the parser', () => {
    expect(() => parseAssetsArgs(['copy', 'x', '--models'])).toThrow(AssetsUsageError);
  });
});
