#!/usr/bin/env node
/*
 * The `gengate` command. This entry imports only node-version.js (which imports nothing), so on a Node.js
 * too old for the host's dependencies it prints one line naming the version needed and exits 1, instead of
 * crashing inside a dependency at import. The CLI itself is cli-main.ts, loaded once the check passed.
 */
import { nodeVersionProblem } from '../node-version.js';

const problem = nodeVersionProblem();
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
await import('./cli-main.js');
