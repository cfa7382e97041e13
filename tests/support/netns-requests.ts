/**
 * Raw HTTP requests sent from "another machine": raw-http.ts run as a script inside a network
 * namespace (netns.ts), so the server sees a non-loopback client address. One batch per call;
 * a request that fails there is an error here.
 */
import { join } from 'node:path';
import type { Netns } from './netns';
import type { RawRequest, RawResponse } from './raw-http';

const RAW_HTTP = join(import.meta.dirname, 'raw-http.ts');

export async function requestsFromNetns(netns: Netns, port: number, requests: Array<Omit<RawRequest, 'host' | 'port'>>): Promise<RawResponse[]> {
  const batch = requests.map((r) => ({ host: netns.hostAddress, port, ...r }));
  const out = JSON.parse(await netns.exec([process.execPath, '--import', 'tsx', RAW_HTTP], JSON.stringify(batch))) as Array<RawResponse | { error: string }>;
  return out.map((r) => {
    if ('error' in r) throw new Error(`request from the namespace failed: ${r.error}`);
    return r;
  });
}
