#!/usr/bin/env node
// The package's assets command (scripts/package/assets-cli.ts, built into dist/lib/).
import '../dist/lib/assets-cli.js';
