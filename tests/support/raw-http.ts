/**
 * HTTP/1.1 requests written byte for byte (tests only): any request target — absolute form, dot
 * segments, raw backslashes — reaches the server as written, which fetch() would normalise away.
 * Run as a script (`node --import tsx raw-http.ts`), it reads a JSON array of RawRequest on stdin
 * and prints the JSON array of RawResponse: how the network-namespace tests send from another address.
 */
import { connect } from 'node:net';

export interface RawRequest {
  host: string;
  port: number;
  method?: string;
  /** The request target exactly as sent. */
  target: string;
  /** Sent as given; `Host` defaults to host:port, `Connection: close` is always added. */
  headers?: Record<string, string>;
  /** Sent after the headers as is (set Content-Length yourself). */
  body?: string;
}

export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export function rawRequest({ host, port, method = 'GET', target, headers = {}, body = '' }: RawRequest): Promise<RawResponse> {
  const lines = [`${method} ${target} HTTP/1.1`];
  const all = { Host: `${host}:${port}`, ...headers, Connection: 'close' };
  for (const [name, value] of Object.entries(all)) lines.push(`${name}: ${value}`);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error(`no answer from ${host}:${port} within 20 s`)));
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(parseResponse(Buffer.concat(chunks).toString('utf8'))));
  });
}

function parseResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, split < 0 ? text.length : split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = split < 0 ? '' : text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body };
}

function unchunk(body: string): string {
  let out = '';
  for (let i = 0; ; ) {
    const eol = body.indexOf('\r\n', i);
    const size = parseInt(body.slice(i, eol), 16);
    if (!(size > 0)) return out;
    out += body.slice(eol + 2, eol + 2 + size);
    i = eol + 2 + size + 2;
  }
}

if (process.argv[1] === import.meta.filename) {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => (input += d));
  process.stdin.on('end', async () => {
    const out: Array<RawResponse | { error: string }> = [];
    for (const request of JSON.parse(input) as RawRequest[]) out.push(await rawRequest(request).catch((e: unknown) => ({ error: String(e) })));
    process.stdout.write(JSON.stringify(out));
  });
}
