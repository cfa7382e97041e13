import { expect, it } from 'vitest';
import { DEFAULT_SETTINGS, parseSettings } from './settings';

it('anything becomes valid settings; valid fields are kept', () => {
  expect(parseSettings(null)).toEqual(DEFAULT_SETTINGS);
  expect(parseSettings('nonsense')).toEqual(DEFAULT_SETTINGS);
  const s = parseSettings({ temperature: 0, topK: 40, maxSteps: 3, tools: { brave_search: false }, proxyEndpoint: ' http://x/api/tools/ ', device: 'wasm' });
  expect(s).toMatchObject({ temperature: 0, topK: 40, maxSteps: 3, proxyEndpoint: 'http://x/api/tools/', device: 'wasm' });
  expect(s.tools).toEqual({ code_interpreter: true, brave_search: false, wolfram_alpha: true });
});

it.each([
  ['temperature', 3],
  ['topP', -0.1],
  ['topK', 1.5],
  ['maxSteps', 0],
  ['maxTokensPerStep', Number.NaN],
  ['searchAndMath', 'cloud'],
  ['contextPolicy', 'truncate-middle'],
])('%s = %s is out of range: the default is kept', (key, value) => {
  expect(parseSettings({ [key]: value })).toEqual(DEFAULT_SETTINGS);
});

it('who answers search and math: auto by default, service or local when chosen', () => {
  expect(DEFAULT_SETTINGS.searchAndMath).toBe('auto');
  expect(parseSettings({ searchAndMath: 'local' }).searchAndMath).toBe('local');
  expect(parseSettings({ searchAndMath: 'service' }).searchAndMath).toBe('service');
});

it('what goes when the context is full: the rolling window by default, keep-first or stop when chosen', () => {
  expect(DEFAULT_SETTINGS.contextPolicy).toBe('rolling');
  expect(parseSettings({ contextPolicy: 'keep-first' }).contextPolicy).toBe('keep-first');
  expect(parseSettings({ contextPolicy: 'stop' }).contextPolicy).toBe('stop');
});

it('the default settings object is not shared', () => {
  parseSettings({}).tools.code_interpreter = false;
  expect(DEFAULT_SETTINGS.tools.code_interpreter).toBe(true);
});

it('a field of the wrong type keeps its default; the others are read; a provider is read without its spaces', () => {
  const s = parseSettings({ tools: { brave_search: 'no', wolfram_alpha: false }, device: 'cpu', proxyEndpoint: '   ', topK: 5, searchAndMath: ' local ' });
  expect(s).toEqual({ ...DEFAULT_SETTINGS, tools: { ...DEFAULT_SETTINGS.tools, wolfram_alpha: false }, topK: 5, searchAndMath: 'local' });
  expect(parseSettings([])).toEqual(DEFAULT_SETTINGS);
  expect(parseSettings({ tools: 'none', unknown: 1 })).toEqual(DEFAULT_SETTINGS);
});
