import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyPyodideAssets, PYODIDE_FILES } from './pyodide-assets';

const root = join(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'pyodide-assets-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('copyPyodideAssets', () => {
  it('copies the runtime files from node_modules/pyodide, then skips current ones', async () => {
    await copyPyodideAssets(root, out);
    expect(readdirSync(out).sort()).toEqual([...PYODIDE_FILES].sort());
    for (const file of PYODIDE_FILES) expect(statSync(join(out, file)).size).toBe(statSync(join(root, 'node_modules/pyodide', file)).size);
    const stamps = PYODIDE_FILES.map((f) => statSync(join(out, f)).mtimeMs);
    await copyPyodideAssets(root, out);
    expect(PYODIDE_FILES.map((f) => statSync(join(out, f)).mtimeMs)).toEqual(stamps);
  });
});
