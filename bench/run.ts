/**
 * `npm run bench [-- SECTION...]`: runs the named sections (all when none), prints their figures as
 * a table and merges them into bench/results.json (keyed by section; sections not run keep their
 * previous figures). `--list` prints the sections. Exit 1 when a section fails, 2 on a bad argument.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { round } from './measure';
import { formatTable, mergeResults, parseResults, type Results } from './results';
import { SECTIONS } from './sections';

const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url));

async function main(args: string[]): Promise<number> {
  if (args.includes('--list')) {
    for (const s of SECTIONS) console.log(`${s.name.padEnd(10)} ${s.summary}`);
    return 0;
  }
  const unknown = args.filter((a) => !SECTIONS.some((s) => s.name === a));
  if (unknown.length > 0) {
    console.error(`bench: unknown section ${unknown.map((a) => JSON.stringify(a)).join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
    return 2;
  }
  const selected = args.length === 0 ? SECTIONS : SECTIONS.filter((s) => args.includes(s.name));
  const previous = parseResults(readOrNull(RESULTS_FILE));
  const fresh: Results = {};
  console.log(`node ${process.version}, ${cpus().length} CPU(s): ${cpus()[0]?.model ?? 'unknown'}`);
  for (const section of selected) {
    console.log(`\n== ${section.name}: ${section.summary}`);
    const t0 = performance.now();
    const figures = await section.run();
    // The machine's 1-minute load average when the section ended: context for absolute times.
    const entry = { ...figures, loadAvg1m: round(loadavg()[0] ?? NaN), ranAt: new Date().toISOString() };
    fresh[section.name] = entry;
    console.log(formatTable({ [section.name]: entry }));
    console.log(`(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  writeFileSync(RESULTS_FILE, `${JSON.stringify(mergeResults(previous, fresh), null, 2)}\n`);
  console.log(`\nwrote ${selected.map((s) => s.name).join(', ')} to bench/results.json`);
  return 0;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
