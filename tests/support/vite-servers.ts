/**
 * A vite dev server and a vite preview server for the same root and plugins, both listening on every
 * interface (0.0.0.0, a free port each) so tests can reach them from this machine and from another
 * address (tests/support/netns.ts). The proxy attack tests run each attack against both.
 */
import type { AddressInfo } from 'node:net';
import { createServer, preview, type PluginOption } from 'vite';

export type ServerKind = 'dev' | 'preview';
export type RunningServers = Record<ServerKind, { port: number; close(): Promise<void> }>;

/** `plugins` is called once per server (each gets its own plugin instances); `outDir`: what preview serves (default root/dist). */
export async function startDevAndPreview(root: string, plugins: () => PluginOption[], outDir?: string): Promise<RunningServers> {
  const dev = await createServer({ root, configFile: false, logLevel: 'silent', plugins: plugins(), server: { host: '0.0.0.0', port: 0, hmr: false, watch: null } });
  await dev.listen();
  const built = await preview({ root, configFile: false, logLevel: 'silent', plugins: plugins(), preview: { host: '0.0.0.0', port: 0 }, ...(outDir ? { build: { outDir } } : {}) });
  return {
    dev: { port: (dev.httpServer!.address() as AddressInfo).port, close: () => dev.close() },
    preview: { port: (built.httpServer.address() as AddressInfo).port, close: () => built.close() },
  };
}
