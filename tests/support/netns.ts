/**
 * A real non-loopback client for server tests (Linux, root; CI runs as root): a network namespace
 * joined to this one by a veth pair on a private /30. A process started in the namespace connects
 * from `nsAddress`, which is not loopback, to the server listening on `hostAddress`.
 *
 * Invariants: names carry a random suffix (parallel runs cannot collide); `remove()` deletes the
 * namespace and the pair whatever state creation stopped in, and is safe to call twice.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Netns {
  name: string;
  /** This side's address of the pair (where a server must listen to be reached). */
  hostAddress: string;
  /** The namespace's address: the client address the server sees. */
  nsAddress: string;
  /** Runs `command` inside the namespace; resolves with its stdout. */
  exec(command: string[], stdin?: string): Promise<string>;
  remove(): Promise<void>;
}

export async function createNetns(): Promise<Netns> {
  const suffix = randomBytes(4).toString('hex');
  const name = `llama-proxy-${suffix}`;
  const hostSide = `lh${suffix}`;
  const nsSide = `ln${suffix}`;
  // 10.(64..127).(0..255).(0..252)/30: a random private /30, unlikely to meet another run's.
  const [a, b, c] = randomBytes(3);
  const net = `10.${64 + (a! % 64)}.${b!}.${c! & 0xfc}`.split('.').map(Number);
  const address = (last: number) => `${net[0]}.${net[1]}.${net[2]}.${net[3]! + last}`;
  const netns: Netns = {
    name,
    hostAddress: address(1),
    nsAddress: address(2),
    async exec(command, stdin) {
      const child = run('ip', ['netns', 'exec', name, ...command], { maxBuffer: 64 * 2 ** 20 });
      if (stdin !== undefined) child.child.stdin?.end(stdin);
      return (await child).stdout;
    },
    async remove() {
      await run('ip', ['link', 'del', hostSide]).catch(() => {});
      await run('ip', ['netns', 'del', name]).catch(() => {});
    },
  };
  try {
    await run('ip', ['netns', 'add', name]);
    await run('ip', ['link', 'add', hostSide, 'type', 'veth', 'peer', 'name', nsSide]);
    await run('ip', ['link', 'set', nsSide, 'netns', name]);
    await run('ip', ['addr', 'add', `${netns.hostAddress}/30`, 'dev', hostSide]);
    await run('ip', ['link', 'set', hostSide, 'up']);
    await netns.exec(['ip', 'addr', 'add', `${netns.nsAddress}/30`, 'dev', nsSide]);
    await netns.exec(['ip', 'link', 'set', nsSide, 'up']);
    await netns.exec(['ip', 'link', 'set', 'lo', 'up']);
  } catch (error) {
    await netns.remove();
    throw new Error(`could not create the test network namespace (needs root and iproute2): ${String(error)}`);
  }
  return netns;
}
