/** `npm run build:llama-server`: builds this machine's llama-server when it has none (.ci/run calls it). */
import { ensureLlamaServer, readLlamaServerBuild } from './llama-server-build';

const binary = await ensureLlamaServer((line) => console.log(line));
const info = await readLlamaServerBuild();
console.log(`llama-server: ${binary} (llama.cpp ${info?.commit.slice(0, 12)}, built in ${info?.buildSeconds} s)`);
