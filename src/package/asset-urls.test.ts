import { describe, expect, it } from 'vitest';
import { assetUrls } from './asset-urls';

describe('assetUrls', () => {
  it('resolves a path against the page and names the three folders under it', () => {
    expect(assetUrls('/llama-assets', 'https://app.example/chat/')).toEqual({
      modelsBaseUrl: 'https://app.example/llama-assets/models/',
      wasmBaseUrl: 'https://app.example/llama-assets/ort/',
      pyodideBaseUrl: 'https://app.example/llama-assets/pyodide/',
    });
    expect(assetUrls('https://cdn.example/llama/', 'https://app.example/').modelsBaseUrl).toBe('https://cdn.example/llama/models/');
  });

  it('refuses what is not a URL, saying so', () => {
    expect(() => assetUrls('http://[bad', 'https://app.example/')).toThrow(new TypeError('assets: "http://[bad" is not a URL or a path'));
  });
});
