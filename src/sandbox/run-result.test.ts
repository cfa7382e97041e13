import { describe, expect, it } from 'vitest';
import { missingPackageNote, RunOutput, timeoutMessage, toSandboxResult, type RunRecord } from './run-result';

const empty: RunRecord = { stdout: '', stderr: '', dropped: { stdout: 0, stderr: 0 }, result: null, error: null, stateLost: false };

describe('toSandboxResult', () => {
  it('passes short fields through', () => {
    const r = toSandboxResult({ ...empty, stdout: '1\n', result: { text: '42', dropped: 0 } }, 100, 7);
    expect(r).toEqual({ stdout: '1\n', stderr: '', result: '42', error: null, stateLost: false, truncated: [], durationMs: 7 });
  });

  it('cuts each field to the limit and names it; a traceback keeps its end', () => {
    const r = toSandboxResult(
      {
        ...empty,
        stdout: 'abcdef',
        stderr: 'ok',
        dropped: { stdout: 0, stderr: 10 },
        result: { text: "'xyz'", dropped: 4 },
        error: { text: 'Traceback\nValueError: bad', dropped: 0 },
        stateLost: true,
      },
      5,
      1,
    );
    expect(r.stdout).toBe('abcde\n[… 1 more characters not shown]');
    expect(r.stderr).toBe('ok\n[… 10 more characters not shown]');
    expect(r.result).toBe("'xyz'\n[… 4 more characters not shown]");
    expect(r.error).toBe('[… 20 earlier characters not shown]\n: bad');
    expect(r.truncated).toEqual(['stdout', 'stderr', 'result', 'error']);
    expect(r.stateLost).toBe(true);
  });
});

describe('RunOutput', () => {
  it('caps each stream on the host side too and adds what the worker dropped', () => {
    const out = new RunOutput(4);
    out.append('stdout', 'abc');
    out.append('stdout', 'def');
    out.append('stderr', 'w');
    expect(out.record({ stdout: 100, stderr: 1 })).toEqual({ stdout: 'abcd', stderr: 'w', dropped: { stdout: 102, stderr: 1 } });
  });
});

describe('messages', () => {
  it('a timeout says how long and what was lost', () => {
    expect(timeoutMessage(10_000)).toBe('timeout after 10s; the interpreter was restarted and its state was lost');
    expect(timeoutMessage(2500)).toBe('timeout after 2.5s; the interpreter was restarted and its state was lost');
  });

  it('a missing package names the module, the package and the way to enable it', () => {
    expect(missingPackageNote({ module: 'numpy', package: 'numpy' }, null)).toMatch(/^numpy is not available offline: .*packageBaseUrl/);
    expect(missingPackageNote({ module: 'sklearn', package: 'scikit-learn' }, null)).toMatch(/^sklearn \(Pyodide package scikit-learn\) is not available offline/);
    expect(missingPackageNote({ module: 'numpy', package: 'numpy' }, 'https://p.example/')).toMatch(/^numpy could not be loaded from the package URL https:\/\/p\.example\//);
  });
});
