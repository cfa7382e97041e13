import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { frameDocument, frameScript } from '../sandbox/sandbox-frame';
import { hostCspSources, hostCspText } from './host-csp';

const inputs = {
  moduleUrl: 'https://cdn.example/llama-chat/1.0/llama-chat.js',
  assetsBase: 'https://assets.example/llama/',
  proxyEndpoint: 'https://api.example/tools/',
  remoteModelUrls: ['https://huggingface.co/mlc-ai/x/resolve/main/', 'https://raw.githubusercontent.com/mlc-ai/libs/x.wasm', 'https://huggingface.co/mlc-ai/y/resolve/main/'],
};

it('lists origins per directive, once each, with the hash of the sandbox frame script', async () => {
  const csp = await hostCspSources(inputs);
  const hash = `'sha256-${createHash('sha256').update(frameScript(), 'utf8').digest('base64')}'`;
  expect(csp).toEqual({
    'script-src': ['https://cdn.example', 'https://assets.example', "'wasm-unsafe-eval'", hash],
    'worker-src': ['blob:', 'data:', 'https://cdn.example', 'https://assets.example'],
    'connect-src': ['https://assets.example', 'https://api.example', 'https://huggingface.co', 'https://raw.githubusercontent.com'],
  });
  expect(hostCspText(csp)).toBe(
    `script-src https://cdn.example https://assets.example 'wasm-unsafe-eval' ${hash}; worker-src blob: data: https://cdn.example https://assets.example; ` +
      'connect-src https://assets.example https://api.example https://huggingface.co https://raw.githubusercontent.com',
  );
});

it('the hashed text is exactly the inline script of the frame document', () => {
  const html = frameDocument("default-src 'none'", 'n1');
  expect(html).toContain(`<script nonce="n1">${frameScript()}</script>`);
});

it('one origin serving everything appears once', async () => {
  const csp = await hostCspSources({ moduleUrl: 'https://w.example/llama-chat.js', assetsBase: 'https://w.example/', proxyEndpoint: 'https://w.example/api/tools/', remoteModelUrls: [] });
  expect(csp['script-src'].slice(0, 2)).toEqual(['https://w.example', "'wasm-unsafe-eval'"]);
  expect(csp['connect-src']).toEqual(['https://w.example']);
});

it('an engine-url adds the engine server’s origin to connect-src (the engine worker fetches it)', async () => {
  const csp = await hostCspSources({ ...inputs, engineUrl: 'https://gpu.example:8443/api/engine/' });
  expect(csp['connect-src']).toEqual(['https://assets.example', 'https://api.example', 'https://gpu.example:8443', 'https://huggingface.co', 'https://raw.githubusercontent.com']);
});

it('MCP servers add their origins to connect-src, once each; a URL that does not parse adds nothing', async () => {
  const csp = await hostCspSources({ ...inputs, mcpServerUrls: ['https://mcp.example/mcp', 'https://mcp.example/other/mcp', 'http://127.0.0.1:3001/mcp', 'not a url'] });
  expect(csp['connect-src']).toEqual(['https://assets.example', 'https://api.example', 'https://mcp.example', 'http://127.0.0.1:3001', 'https://huggingface.co', 'https://raw.githubusercontent.com']);
});
