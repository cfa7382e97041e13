import { describe, expect, it } from 'vitest';
import { ToolError } from '../tools/tool';
import { parseRecording, recordedTools } from './recorded-tools';

const signal = new AbortController().signal;

describe('recorded tools', () => {
  const [search, code] = recordedTools({
    brave_search: { 'population of Oslo': { results: [{ description: '709,037' }] } },
    code_interpreter: { 'print(2 ** 10)': { stdout: '1024\n' } },
  });

  it('answer recorded calls by query or code', async () => {
    expect(search!.name).toBe('brave_search');
    expect(await search!.execute({ query: 'population of Oslo' }, { signal })).toEqual({ results: [{ description: '709,037' }] });
    expect(await code!.execute({ code: 'print(2 ** 10)' }, { signal })).toEqual({ stdout: '1024\n' });
  });

  it('an unrecorded call is a ToolError naming it', async () => {
    await expect(search!.execute({ query: 'population of Rome' }, { signal })).rejects.toThrow(ToolError);
    await expect(search!.execute({ query: 'population of Rome' }, { signal })).rejects.toThrow(/no recorded result for brave_search "population of Rome"/);
  });

  it('rejects a file that is not tool → call → result', () => {
    expect(() => parseRecording([])).toThrow(/^expected an object of tool name → \{call → result\}$/);
    expect(() => parseRecording(null)).toThrow(/^expected an object of tool name/);
    expect(() => parseRecording({ brave_search: 'x' })).toThrow(/^brave_search: expected an object of call → result$/);
    expect(() => parseRecording({ brave_search: {}, code_interpreter: [] })).toThrow(/^code_interpreter: expected an object of call → result$/);
    expect(parseRecording({ brave_search: { q: { results: [] } } })).toEqual({ brave_search: { q: { results: [] } } });
  });
});
