/**
 * Opens the sandbox: a hidden `<iframe sandbox="allow-scripts">` (opaque origin) built from srcdoc
 * with a strict CSP and one nonce'd bootstrap script, and hands it two fresh MessagePorts and
 * Pyodide's runtime files (the frame cannot fetch them: connect-src 'none'). The host keeps the
 * other ends of the ports: that is the whole wire. The host posts exactly one message to the
 * frame's window (ports and files) and never listens to window `message` events.
 */
import { sandboxCsp } from './csp';
import { frameBootstrap } from './frame-bootstrap';
import type { FrameStart, PyodideFiles, WorkerConfig } from './protocol';

export interface SandboxFrame {
  /** The Pyodide worker's end of the wire (requests out, output and results in). */
  readonly worker: MessagePort;
  /** The frame bootstrap's end (worker error events). */
  readonly control: MessagePort;
  /** Removes the frame, which terminates its worker and everything running there. Idempotent. */
  remove(): void;
}

export interface SandboxFrameOptions {
  container: HTMLElement;
  workerSource: string;
  workerConfig: WorkerConfig;
  /** This interpreter's own copy of the files (their buffers are transferred to the frame). */
  files: PyodideFiles;
  /** The frame loaded a second time (e.g. it was moved in the document): its worker is gone. */
  onReload: () => void;
}

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The text of the frame's one inline script. A srcdoc frame also inherits the embedding page's CSP,
 * so a host whose script-src has no 'unsafe-inline' must allow this exact text by hash
 * (scriptHashSource in csp.ts; the widget reports it, see host-csp.ts).
 */
export function frameScript(): string {
  const script = `(${frameBootstrap.toString()})()`;
  if (/<\/script/i.test(script)) throw new Error('the frame bootstrap cannot be inlined');
  return script;
}

/** The frame's whole document. */
export function frameDocument(csp: string, nonce: string): string {
  const script = frameScript();
  return [
    '<!doctype html><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">`,
    `<script nonce="${nonce}">${script}</script>`,
  ].join('\n');
}

export function openSandboxFrame({ container, workerSource, workerConfig, files, onReload }: SandboxFrameOptions): SandboxFrame {
  const nonce = randomNonce();
  const csp = sandboxCsp({ indexUrl: workerConfig.indexUrl, nonce });
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.setAttribute('referrerpolicy', 'no-referrer');
  iframe.setAttribute('aria-hidden', 'true');
  iframe.tabIndex = -1;
  iframe.style.display = 'none';
  iframe.srcdoc = frameDocument(csp, nonce);

  const workerChannel = new MessageChannel();
  const controlChannel = new MessageChannel();
  const start: FrameStart = { type: 'start', workerSource, workerConfig, files };
  // '*' is the only target an opaque origin can be given; the frame cannot have navigated (its one
  // script does not, and nothing else can reach it), and it checks that the message is its parent's.
  let loads = 0;
  iframe.addEventListener('load', () => {
    if (loads++ === 0) iframe.contentWindow?.postMessage(start, '*', [controlChannel.port2, workerChannel.port2, files.wasm, files.stdlib]);
    else onReload();
  });
  container.append(iframe);
  return {
    worker: workerChannel.port1,
    control: controlChannel.port1,
    remove() {
      workerChannel.port1.close();
      controlChannel.port1.close();
      iframe.remove();
    },
  };
}
