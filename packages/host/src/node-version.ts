/*
 * The oldest Node.js gengate's host runs on, and the check that says so in one line. This file imports
 * nothing, so it runs on any Node.js before a dependency that needs a newer one can crash at import.
 * 22.19.0: undici 8 (the host's HTTP client) reads node:zlib's zstd, added in 22.15 and required from 22.19
 * by its engines; pg-boss 12 wants 22.12; the AI SDK, file-type and the adapters want 22.
 */
export const MINIMUM_NODE_VERSION = '22.19.0';

function parts(version: string): readonly number[] {
  return version
    .replace(/^v/, '')
    .split('.')
    .map((p) => Number.parseInt(p, 10) || 0);
}

/** A one-line refusal when `version` (default: this process's) is older than the minimum, else null. */
export function nodeVersionProblem(version: string = process.versions.node): string | null {
  const have = parts(version);
  const need = parts(MINIMUM_NODE_VERSION);
  for (let i = 0; i < need.length; i++) {
    const h = have[i] ?? 0;
    const n = need[i] ?? 0;
    if (h > n) return null;
    if (h < n) {
      return `gengate needs Node.js ${MINIMUM_NODE_VERSION} or later; this is Node.js ${version.replace(/^v/, '')}. Install a current Node.js (22 LTS from 22.19, or 24) and run it again.`;
    }
  }
  return null;
}
