/**
 * Every failure text the model can read in an ipython turn, in one place. The runtime (tool proxy,
 * proxy client, tool calls, sandbox, local providers) writes its failures with these builders, and the
 * micro model's training corpus (scripts/micro-llama/tool-results.ts) builds its error results with the
 * same builders: a wording change here changes what the model is trained on, never only one side.
 *
 * Invariant: FAILURE_KINDS lists every builder the model can see; the corpus trains each of them
 * (scripts/micro-llama/corpus.test.ts fails otherwise).
 */
import { LEFTOVER_NOTICE, runKilledMessage, stateLostMessage, timeoutMessage } from '../sandbox/run-result';

export type ServiceName = 'brave_search' | 'wolfram_alpha';

/** The services behind the tool proxy: how they are named to the user and the key that enables them. */
export const SERVICE_NAMES: Readonly<Record<ServiceName, { label: string; keyVar: string }>> = {
  brave_search: { label: 'Brave Search', keyVar: 'BRAVE_API_KEY' },
  wolfram_alpha: { label: 'Wolfram|Alpha', keyVar: 'WOLFRAM_APP_ID' },
};

/** In seconds, as FORMAT.md writes it: 5000 → "5s", 1500 → "1.5s", 300 → "0.3s", 50 → "0.05s". */
export function duration(ms: number): string {
  const s = ms / 1000;
  return `${s >= 0.1 ? Math.round(s * 10) / 10 : Number(s.toFixed(3))}s`;
}

/** "5 s", "1.5 s", "300 ms": how the proxy writes its upstream time limit. */
export function proxySeconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}

export const FAILURE_TEXTS = {
  /** The proxy has no key for the service (with `setup`: how to set it). */
  notConfigured: (s: ServiceName) => `${SERVICE_NAMES[s].label} is not configured: ${SERVICE_NAMES[s].keyVar} is not set`,
  notConfiguredSetup: (s: ServiceName) => `set ${SERVICE_NAMES[s].keyVar} in the environment of the dev/preview server`,
  keyRejected: (s: ServiceName) => `the API key was rejected by ${SERVICE_NAMES[s].label} (check ${SERVICE_NAMES[s].keyVar})`,
  rateLimited: (s: ServiceName) => `rate limited by ${SERVICE_NAMES[s].label}: too many requests, try again later`,
  upstreamFailed: (s: ServiceName, status: number) => `upstream error: ${SERVICE_NAMES[s].label} failed (HTTP ${status})`,
  upstreamRejected: (s: ServiceName, status: number) => `${SERVICE_NAMES[s].label} rejected the request (HTTP ${status})`,
  wolframNotUnderstood: () => 'Wolfram|Alpha could not interpret the input; try rephrasing it',
  upstreamTimeout: (s: ServiceName, ms: number) => `${SERVICE_NAMES[s].label} did not answer within ${proxySeconds(ms)}`,
  upstreamUnreachable: (s: ServiceName, reason: string) => `could not reach ${SERVICE_NAMES[s].label}: ${reason}`,
  proxyUnreachable: (url: string, reason: string) => `could not reach the tool proxy at ${url}: ${reason}`,
  proxyMissing: (status: number, url: string) =>
    `the tool proxy is not available (HTTP ${status} from ${url}): serve the page with the dev or preview server, or point proxyBase at a running tool proxy`,
  /** The loop's own limit on one call: `timeout after 5s`. */
  callTimeout: (ms: number) => `timeout after ${duration(ms)}`,
  declined: (tool: string) => `the user declined to run ${tool}`,
  noConfirmer: (tool: string) => `${tool} needs the user's confirmation and no one could be asked`,
  unknownTool: (name: string) => `unknown tool "${name}"`,
  interpreterOff: () => 'the code interpreter is not enabled',
  unreadableCall: (why: string) => `could not read the tool call: ${why}`,
  invalidArguments: (tool: string, why: string) => `invalid arguments for ${tool}: ${why}`,
  /** The sandbox was replaced (reset, timeout, abort) while this run was in flight. */
  runKilled: runKilledMessage,
  /** The run itself failed the interpreter (crash, abort): `{"error": ..., "state_lost": true}`. */
  stateLost: stateLostMessage,
  codeTimeout: timeoutMessage,
  leftoverWork: () => LEFTOVER_NOTICE,
  localMathCannot: () => 'local math answers arithmetic, powers, roots, derivatives and unit conversions only (no API key is set for Wolfram|Alpha)',
} as const;

export type FailureKind = keyof typeof FAILURE_TEXTS;

/**
 * What the loop writes into an ipython turn when a run ends mid-call (the user's abort, the time budget,
 * the app's own failure) or a message ended with eom but held no call. The model reads these only in the history of a later
 * turn; the micro model's corpus does not train them (scripts/micro-llama/tool-failures.test.ts lists
 * them as the untrained texts, so a new one cannot slip in).
 */
export const LOOP_TEXTS = {
  nothingCallable: () => 'the message ended with <|eom_id|> but contained no tool call; answer in plain text or make a call',
  abortedByUser: () => 'aborted by the user',
  timeBudget: () => 'the time budget ran out',
  /** A call the loop did not run because the app ended the turn (an unreadable call beside it, the app's own failure). */
  notRun: () => 'not run: the turn was ended',
} as const;

/** The kinds that reach the model as a tool result (all of them). */
export const FAILURE_KINDS = Object.keys(FAILURE_TEXTS) as FailureKind[];
