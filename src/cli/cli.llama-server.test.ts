/**
 * The CLI's commands against a real llama-server that wants an API key (`--engine URL`, the key from
 * LLAMA_ENGINE_API_KEY), in process as in cli.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKED_EXAMPLE_PROMPT } from '../../tests/fixtures/worked-example';
import { expectOneLineError, expectOsloAnswer, OSLO, osloResults, runInProcess as cli } from '../../tests/support/cli';
import { startLlamaServer, type LlamaServer } from '../../tests/support/llama-server';

const WORKED = join(import.meta.dirname, '../../tests/fixtures/worked-example.json');

/** A real llama-server that wants an API key, serving the micro model. */
const ENGINE_KEY = 'cli-test-key';
let server: LlamaServer;
beforeAll(async () => {
  server = await startLlamaServer({ args: ['--api-key', ENGINE_KEY] });
});
afterAll(() => server?.stop());
const withKey = { LLAMA_ENGINE_API_KEY: ENGINE_KEY };

describe('cli on an engine server', () => {
  it('ask runs an engine server (--engine URL, its key from LLAMA_ENGINE_API_KEY) unforced; --results answers its call from a recording', async () => {
    expectOsloAnswer(await cli(['ask', '--engine', server.url, '--results', osloResults(), OSLO.question], '', withKey));
  });

  it('replay --engine URL gives the same prompts; a step recorded to its stop never needs the server', async () => {
    const r = await cli(['replay', '--engine', server.url, WORKED], '', withKey);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { prompts: string[]; steps: Array<{ stop: string; prefilledTokens: number | null }> };
    expect(report.prompts[1]).toBe(WORKED_EXAMPLE_PROMPT);
    expect(report.steps.map((s) => [s.stop, s.prefilledTokens])).toEqual([['eom', 0], ['eot', 0]]);
  });

  it('an engine server without its key (LLAMA_ENGINE_API_KEY unset): one-line error on stderr, exit code 2', async () => {
    expectOneLineError(
      await cli(['ask', '--engine', server.url, 'hi'], '', { LLAMA_ENGINE_API_KEY: '' }),
      /server_error: the engine server at http:\/\/127\.0\.0\.1:\d+ refused the API key \(401\)/,
    );
  });
});
