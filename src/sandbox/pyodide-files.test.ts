import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { packageFile, pyodideFiles } from './pyodide-files';

const DIR = join(import.meta.dirname, '../../node_modules/pyodide');
const INDEX = 'https://app.example/pyodide/';
const PACKAGES = 'https://pkgs.example/v314/';
const lock = JSON.parse(readFileSync(join(DIR, 'pyodide-lock.json'), 'utf8')) as { packages: Record<string, { file_name: string }> };
const file = (name: string) => lock.packages[name]!.file_name;
const fetched: Array<{ url: string; integrity?: string }> = [];

beforeAll(() => {
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    fetched.push({ url, ...(init?.integrity ? { integrity: init.integrity } : {}) });
    if (url.startsWith(INDEX)) return new Response(readFileSync(join(DIR, url.slice(INDEX.length))));
    return new Response(`bytes of ${url}`);
  });
});
afterAll(() => vi.unstubAllGlobals());

describe('pyodideFiles', () => {
  it('loads the runtime once per directory and gives each interpreter its own copy', async () => {
    const [a, b] = [await pyodideFiles(INDEX), await pyodideFiles(INDEX)];
    expect(fetched.map((f) => f.url).sort()).toEqual([`${INDEX}pyodide-lock.json`, `${INDEX}pyodide.asm.wasm`, `${INDEX}python_stdlib.zip`]);
    expect(a.wasm).not.toBe(b.wasm);
    expect(a.wasm.byteLength).toBe(b.wasm.byteLength);
    expect(JSON.parse(a.lock)).toHaveProperty('packages.numpy');
  });
});

describe('pyodideFiles when the directory does not hold Pyodide', () => {
  it('says which file is wrong and where Pyodide was looked for, and a later call tries again', async () => {
    const other = 'https://app.example/not-pyodide/';
    await expect(pyodideFiles(other)).rejects.toThrow(/^https:\/\/app\.example\/not-pyodide\/pyodide\.asm\.wasm is not a WebAssembly file: is Pyodide served from https:\/\/app\.example\/not-pyodide\/\?$/);
    fetched.length = 0;
    await expect(pyodideFiles(other)).rejects.toThrow(/not a WebAssembly file/);
    expect(fetched.length).toBeGreaterThan(0); // not cached: fetched again
  });
});

describe('packageFile: only what the run imports, and what that depends on', () => {
  const cases: Record<string, { code: string; file: string; served: boolean }> = {
    'a package the code imports': { code: 'import numpy as np\nnp.zeros(3)', file: file('numpy'), served: true },
    'a dependency of an imported package': { code: 'from sklearn.linear_model import LinearRegression', file: file('scipy'), served: true },
    'one of several names on one import line': { code: 'import os, numpy', file: file('numpy'), served: true },
    'a package the code does not import': { code: 'print("hi")', file: file('numpy'), served: false },
    'a file name no lock entry has': { code: 'import numpy', file: 'leak?d=secret', served: false },
    'a path out of the package directory': { code: 'import numpy', file: `../${file('numpy')}`, served: false },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => {
      fetched.length = 0;
      const r = await packageFile(INDEX, PACKAGES, c.code, c.file);
      if (c.served) {
        expect(r).toMatchObject({ status: 200 });
        expect(new TextDecoder().decode(r.bytes!)).toBe(`bytes of ${PACKAGES}${c.file}`);
        expect(fetched).toEqual([{ url: `${PACKAGES}${c.file}`, integrity: expect.stringMatching(/^sha256-[A-Za-z0-9+/]{43}=$/) }]);
      } else {
        expect(r).toEqual({ status: 0, bytes: null });
        expect(fetched).toEqual([]);
      }
    });
  }
});
