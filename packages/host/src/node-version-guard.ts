/*
 * Imported first by every entry of @gengate/host: refuses to load on a Node.js older than the host needs,
 * with one clear sentence, before a dependency (undici) crashes at import with an obscure TypeError.
 * ES modules evaluate in import order, and node-version.ts imports nothing, so this runs first.
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem();
if (problem !== null) throw new Error(problem);
