/**
 * The widget demo's host tool, as src/widget/demo.html registers it (offline-cases.test.ts checks the
 * page still says the same): the tests ask the micro model with exactly this schema.
 */
import type { CustomToolSpec } from '../../src/tools/custom-tool';

/** Its one parameter's schema. */
export const WIDGET_DEMO_DAY = { type: 'string', description: 'Weekday, e.g. Monday' } as const;

/** Also one of the get_opening_hours variants the micro model is trained on (custom-tools.ts). */
export const WIDGET_DEMO_TOOL: CustomToolSpec = {
  name: 'get_opening_hours',
  description: 'Opening hours of the bakery on a given weekday',
  parameters: { type: 'object', properties: { day: WIDGET_DEMO_DAY }, required: ['day'] },
  readOnly: true,
  execute: ({ day }: Record<string, unknown>) => ({ day, open: '07:00', close: day === 'Sunday' ? '12:00' : '18:00' }),
};
