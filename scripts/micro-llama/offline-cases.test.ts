/** The offline demo advertises exactly what its unforced tests ask (offline-cases.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODEL_EXAMPLES } from '../../src/engine/model-examples';
import { OFFLINE_CASES } from './offline-cases';
import { WIDGET_DEMO_TOOL } from './widget-demo-tool';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('what the offline demo advertises', () => {
  it("the chat page's example questions for the micro model are the tested built-in cases, in order", () => {
    const examples = MODEL_EXAMPLES['micro-llama']!;
    const local = OFFLINE_CASES.filter((c) => c.tools === 'local');
    expect(examples.map((e) => e.text)).toEqual(local.map((c) => c.question));
    expect(examples.map((e) => e.tools)).toEqual(local.map((c) => (c.tool === null ? [] : [c.tool])));
  });

  it('the widget demo suggests its tested question and registers the tested tool', () => {
    const page = read('src/widget/demo.html');
    for (const c of OFFLINE_CASES.filter((x) => x.tools === 'widget')) expect(page).toContain(`<q>${c.question}</q>`);
    const props = (WIDGET_DEMO_TOOL.parameters as { properties: { day: { description: string } } }).properties;
    for (const s of [`name: '${WIDGET_DEMO_TOOL.name}'`, `description: '${WIDGET_DEMO_TOOL.description}'`, `description: '${props.day.description}'`]) expect(page).toContain(s);
  });

  it('the README lists every case', () => {
    const readme = read('README.md').replace(/\s+/g, ' ');
    for (const c of OFFLINE_CASES) expect(readme).toContain(`"${c.question}"`);
  });
});
