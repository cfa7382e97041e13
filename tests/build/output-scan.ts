/**
 * What a build wrote, read back: every file under a folder with its size, gzip size of the text
 * ones, and the test markers (names only the tests' hooks use) found in any of them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Names that exist only in the tests' hooks (tests/browser/hooks, tests/support): none may ship. */
export const TEST_MARKERS = ['engine-test', 'test-hooks', 'forceNextRun', 'llamaTest', 'chat-test', 'widget-test-entry', 'withScriptedSteps', 'forceSteps'];

export interface OutputFile {
  /** Relative to the scanned folder, with `/`. */
  path: string;
  bytes: number;
}

export function outputFiles(dir: string): OutputFile[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path: relative(dir, path).split('\\').join('/'), bytes: statSync(path).size }));
}

/** `file: marker` for every marker found in any file under dir (binary files included, byte for byte). */
export function testMarkersIn(dir: string): string[] {
  return outputFiles(dir).flatMap(({ path }) => {
    const content = readFileSync(join(dir, path));
    return TEST_MARKERS.filter((marker) => content.includes(marker)).map((marker) => `${path}: ${marker}`);
  });
}

export const gzipBytes = (path: string): number => gzipSync(readFileSync(path), { level: 9 }).length;

/** The chunks an ES module imports statically, transitively (what loads before it runs), itself first. */
export function staticClosure(dir: string, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(join(dir, file), 'utf8');
    for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w$*{}\s,]+from\s*)?["'](\.{1,2}\/[^"']+)["']/g)) {
      visit(relative(dir, join(dir, file, '..', m[1]!)).split('\\').join('/'));
    }
  };
  visit(entry);
  return [...seen];
}
