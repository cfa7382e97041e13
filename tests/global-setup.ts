// Makes every test run start from generated assets, however vitest was invoked (idempotent: ms when current).
import { runSetup } from '../scripts/setup';

export default async function setup(): Promise<void> {
  await runSetup({ quiet: true });
}
