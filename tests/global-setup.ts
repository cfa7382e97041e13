// Makes every test run start from generated assets, however vitest was invoked (idempotent: ms when
// current). llama-server is built by the `llama-server` tier's own setup (tests/llama-server-setup.ts).
import { runSetup } from '../scripts/setup';

export default async function setup(): Promise<void> {
  await runSetup({ quiet: true });
}
