/** XGrammar in Node: its UMD bundle evaluated as CommonJS (an ESM import of it fails). */
import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import type { XGrammar } from './xgrammar';

let loaded: XGrammar | null = null;

export async function loadXGrammarNode(): Promise<XGrammar> {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve('@mlc-ai/web-xgrammar/lib/index.js');
  const cjs = new Module(file) as Module & { _compile(source: string, filename: string): void; paths: string[] };
  cjs.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(file));
  cjs._compile(readFileSync(file, 'utf8'), file);
  loaded = cjs.exports as XGrammar;
  return loaded;
}
