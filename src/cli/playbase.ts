#!/usr/bin/env node
// The `playbase` command (package.json bin; `npm run cli -- <command>` in development): see src/cli/program.ts.
import { processIo } from './io.js';
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
