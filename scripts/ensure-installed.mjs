// Lets `npm test` work straight after cloning: installs dependencies (which runs the setup) when
// they are missing, and reruns the idempotent setup otherwise. Plain JS: runs before any install.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (cmd) => execSync(cmd, { stdio: 'inherit' });
if (!existsSync('node_modules/.package-lock.json')) run('npm ci --no-audit --no-fund');
else run('npx tsx scripts/setup.ts');
