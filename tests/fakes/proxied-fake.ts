import { startToolProxyServer, type ToolProxyServer } from '../../src/server/tool-proxy';
import { startBraveWolframFake, type BraveWolframFake } from './brave-wolfram-fake';

/** The loopback fake upstreams and two tool proxies over them: `proxy` holds the fake's keys, `keyless` none. */
export interface ProxiedFake {
  fake: BraveWolframFake;
  proxy: ToolProxyServer;
  keyless: ToolProxyServer;
  close(): Promise<void>;
}

/** `timeoutMs` is the proxies' upstream timeout: short, so that timeout cases end fast. */
export async function startProxiedFake(timeoutMs = 300): Promise<ProxiedFake> {
  const fake = await startBraveWolframFake();
  const proxy = await startToolProxyServer({ ...fake.proxyOptions(), timeoutMs });
  const keyless = await startToolProxyServer({ ...fake.proxyOptions(), timeoutMs, env: {} });
  return {
    fake,
    proxy,
    keyless,
    async close() {
      await proxy.close();
      await keyless.close();
      await fake.close();
    },
  };
}
