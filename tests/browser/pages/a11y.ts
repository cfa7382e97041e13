/**
 * Accessibility checks for the browser tests: axe-core (pinned, injected from node_modules) run on the
 * page — open shadow roots included, so the widget is checked too — keeping the serious and critical
 * violations; and WCAG's contrast ratio of an element's text against the background it sits on.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

export interface Violation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Serious and critical axe violations of `selector` (default: the whole document). */
export async function seriousViolations(page: Page, selector?: string): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axe.source });
  return page.evaluate(async (sel) => {
    const w = window as unknown as { axe: typeof axe };
    const result = await w.axe.run(sel ? { include: [sel] } : document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  }, selector);
}

/** The contrast ratio (1..21) of each element matching `selector`: its text colour on its effective background. */
export function contrastRatios(page: Page, selector: string): Promise<number[]> {
  return page.evaluate((sel) => {
    const rgb = (c: string): [number, number, number, number] => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return [0, 0, 0, 0];
      const [r, g, b, a] = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
      return [r!, g!, b!, a ?? 1];
    };
    const luminance = ([r, g, b]: number[]) => {
      const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
    };
    const background = (el: Element | null): [number, number, number] => {
      for (let e = el; e; e = e.parentElement) {
        const [r, g, b, a] = rgb(getComputedStyle(e).backgroundColor);
        if (a > 0.99) return [r, g, b];
      }
      return [255, 255, 255];
    };
    return [...document.querySelectorAll(sel)].map((el) => {
      const fg = luminance(rgb(getComputedStyle(el).color));
      const bg = luminance(background(el));
      return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    });
  }, selector);
}
