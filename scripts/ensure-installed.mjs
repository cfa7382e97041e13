// Lets `npm test` work straight after cloning: installs dependencies (which runs the setup) when
// they are missing, and reruns the idempotent setup otherwise. Plain JS: runs before any install.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// onnxruntime-node's install would download CUDA libraries: skipped by .npmrc and, since npm warns that
// it will stop passing unknown .npmrc keys, by the environment variable its install script also reads.
const run = (cmd) => execSync(cmd, { stdio: 'inherit', env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });
if (!existsSync('node_modules/.package-lock.json')) run('npm ci --no-audit --no-fund');
else run('npx tsx scripts/setup.ts');
