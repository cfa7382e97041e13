// The `llama-server` tier's setup: this machine's llama-server, built once (~6–10 minutes on 2 cores)
// when it has none, before any of the tier's files start one (so no test hook waits on the build).
import { llamaServerBinary } from './support/llama-server';

export default async function setup(): Promise<void> {
  await llamaServerBinary();
}
