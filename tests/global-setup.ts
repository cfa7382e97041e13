// Makes every test run start from generated assets, however vitest was invoked (idempotent: ms when
// current), and from this machine's llama-server (built once, ~6–10 minutes, when it has none).
import { ensureLlamaServer } from '../scripts/llama-server/llama-server-build';
import { runSetup } from '../scripts/setup';

export default async function setup(): Promise<void> {
  await runSetup({ quiet: true });
  await ensureLlamaServer((line) => console.log(line));
}
