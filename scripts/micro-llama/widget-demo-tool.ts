/**
 * The widget demo's host tool, as src/widget/demo.html registers it (offline-cases.test.ts checks the
 * page still says the same): the tests ask the micro model with exactly this schema.
 */
import type { CustomToolSpec } from '../../src/tools/custom-tool';

export const WIDGET_DEMO_TOOL: CustomToolSpec = {
  name: 'get_opening_hours',
  description: 'Opening hours of the bakery on a given weekday',
  parameters: { type: 'object', properties: { day: { type: 'string', description: 'Weekday, e.g. Monday' } }, required: ['day'] },
  readOnly: true,
  execute: ({ day }: Record<string, unknown>) => ({ day, open: '07:00', close: day === 'Sunday' ? '12:00' : '18:00' }),
};
