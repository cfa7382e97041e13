/**
 * One source of truth for what a failed tool call looks like to the model: the training corpus draws
 * every runtime failure text, and builds it exactly as the runtime does.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxiedFake, type ProxiedFake } from '../../tests/fakes/proxied-fake';
import { runToolCall } from '../../src/agent/run-tool-call';
import { ToolSet } from '../../src/agent/tool-set';
import { braveSearchTool } from '../../src/tools/brave-search';
import { FAILURE_KINDS, FAILURE_TEXTS, LOOP_TEXTS, type FailureKind } from '../../src/tools/failure-texts';
import { formatToolResult } from '../../src/tools/tool-result';
import { wolframAlphaTool } from '../../src/tools/wolfram-alpha';
import { Rng } from './rng';
import { TRAINED_FAILURES, trainingFailure, type ToolName } from './tool-results';

const TOOLS: readonly ToolName[] = ['brave_search', 'wolfram_alpha', 'code_interpreter', 'custom'];

/** 4,000 failures per tool as the corpus draws them. */
function draws(): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const rng = new Rng(11);
  for (const tool of TOOLS) {
    for (let i = 0; i < 4000; i++) {
      const f = trainingFailure(rng, tool);
      seen.set(f.kind, [...(seen.get(f.kind) ?? []), f.content]);
    }
  }
  return seen;
}

describe('tool failures in the training corpus', () => {
  const seen = draws();

  it('has a training counterpart for every failure text of the runtime', () => {
    expect(Object.keys(TRAINED_FAILURES).sort()).toEqual([...FAILURE_KINDS].sort());
    for (const kind of FAILURE_KINDS.filter((k) => k !== 'notConfiguredSetup')) expect(seen.has(kind), kind).toBe(true);
    // The setup hint travels inside the not-configured result, as the proxy sends it.
    expect(seen.get('notConfigured')!.some((c) => c.includes(FAILURE_TEXTS.notConfiguredSetup('brave_search')))).toBe(true);
    expect(seen.get('notConfigured')!.some((c) => c.includes(FAILURE_TEXTS.notConfiguredSetup('wolfram_alpha')))).toBe(true);
    expect(seen.has('pythonException')).toBe(true);
  });

  it('lists the loop texts no corpus trains yet, so a new text cannot slip past the corpus', () => {
    // Written only in the history after an abort, a spent time budget, an eom without a call or a turn the app ended (see LOOP_TEXTS).
    expect(Object.keys(LOOP_TEXTS)).toEqual(['nothingCallable', 'abortedByUser', 'timeBudget', 'notRun']);
  });

  it('writes every failure as the loop writes it: JSON with the error, or local math\'s plain refusal', () => {
    for (const [kind, contents] of seen) {
      for (const c of contents.slice(0, 50)) {
        if (kind === 'localMathCannot') expect(c).toBe(FAILURE_TEXTS.localMathCannot());
        else expect(JSON.parse(c) as object, `${kind}: ${c}`).toEqual(expect.objectContaining(kind === 'leftoverWork' ? { note: FAILURE_TEXTS.leftoverWork() } : { error: expect.any(String) }));
      }
    }
  });
});

describe('the runtime writes the same bytes the corpus trains', () => {
  let upstreams: ProxiedFake;
  beforeAll(async () => void (upstreams = await startProxiedFake()));
  afterAll(() => upstreams.close());
  const countTokens = (text: string) => text.length;
  const signal = () => new AbortController().signal;
  const trained = (kind: FailureKind, tool: ToolName) => TRAINED_FAILURES[kind].build(new Rng(1), tool).content;

  it.each(['brave_search', 'wolfram_alpha'] as const)('%s without a key (the proxy\'s 503, through the proxy client)', async (tool) => {
    const t = tool === 'brave_search'
      ? braveSearchTool({ proxyBase: upstreams.keyless.toolsBase, provider: 'service' })
      : wolframAlphaTool({ proxyBase: upstreams.keyless.toolsBase, provider: 'service' });
    const error = await t.execute({ query: 'population of Oslo' }, { signal: signal() }).then(() => null, (e: unknown) => e);
    expect(formatToolResult({ ok: false, error }, { countTokens })).toBe(trained('notConfigured', tool));
  });

  it('a declined confirmation and an unknown tool (through runToolCall)', async () => {
    const tools = new ToolSet([braveSearchTool({ proxyBase: upstreams.keyless.toolsBase })]);
    const base = { tools, signal: signal(), timeoutMs: 5000, maxResultTokens: 1500, countTokens, onConfirmationRequest: () => {} };
    const call = { kind: 'builtin' as const, name: 'brave_search', arguments: { query: 'population of Oslo' } };
    const declined = await runToolCall(call, { ...base, confirm: async () => false });
    expect(declined.content).toBe(TRAINED_FAILURES.declined.build(new Rng(1), 'brave_search').content);
    const unknown = await runToolCall({ kind: 'custom', name: 'get_opening_hours', arguments: { day: 'Monday' } }, base);
    expect(JSON.parse(unknown.content)).toMatchObject({ error: FAILURE_TEXTS.unknownTool('get_opening_hours') });
  });
});

/**
 * Failure texts written outside failure-texts.ts, where the model may read them. Each is listed here
 * with why it is not trained yet; a new literal in these files fails this test until it moves into
 * FAILURE_TEXTS (and so into the corpus) or is listed with its reason.
 */
const UNTRAINED_LITERALS: Readonly<Record<string, number>> = {
  // An empty "code" / "query" argument: the corpus never writes an empty call.
  'src/tools/code-interpreter.ts': 1,
  'src/tools/query-argument.ts': 1,
  // A host tool's value that is not JSON, or a throw of a non-Error: host bugs, not tool failures.
  'src/tools/tool-result.ts': 2,
  // A non-JSON answer from Brave.
  'src/tools/brave-search.ts': 1,
  // Local math's refusals: FAILURE_TEXTS.localMathCannot (trained) followed by the query and what was refused; one is mathjs's own disabled-function guard.
  'src/tools/local-math.ts': 7,
  // Requests the project's own clients never make (bad endpoint, method, parameters), a redirect, a client that left.
  'src/server/proxy-handler.ts': 9,
};

describe('no runtime failure text outside failure-texts.ts goes unlisted', () => {
  it.each(Object.entries(UNTRAINED_LITERALS))('%s writes %i listed literal(s)', (file, count) => {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const literals = source.match(/new ToolError\([`']|\berror: [`']|new Error\([`']/g) ?? [];
    expect(literals.length).toBe(count);
  });

  it.each(['src/agent/run-tool-call.ts', 'src/agent/run-agent.ts', 'src/tools/proxy-client.ts', 'src/sandbox/pyodide-sandbox.ts'])('%s writes none', (file) => {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    const literals = (source.match(/new ToolError\([`']|\berror: [`']|new Error\([`'][^`']*[`']/g) ?? []).filter((l) => !l.startsWith('new Error'));
    expect(literals).toEqual([]);
  });
});
