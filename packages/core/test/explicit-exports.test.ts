import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const packages = join(import.meta.dirname, '..', '..');

type Exports = Record<string, { '@gengate/source': string }>;

/** The source file of each entry a package declares in package.json `exports` (the `@gengate/source` condition). */
function entryFiles(name: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(packages, name, 'package.json'), 'utf8')) as { exports: Exports };
  return Object.fromEntries(Object.entries(pkg.exports).map(([sub, conditions]) => [sub, join(packages, name, conditions['@gengate/source'])]));
}

/** The names an entry file exports (`export { a, type B } from`, `export type { C } from`). */
function exportedNames(file: string): Set<string> {
  const names = new Set<string>();
  for (const m of readFileSync(file, 'utf8').matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of (m[1] ?? '').split(',')) {
      const name = part.trim().replace(/^type /, '').split(/ as /).pop()?.trim();
      if (name) names.add(name);
    }
  }
  return names;
}

const core = entryFiles('core');

describe('public API lists', () => {
  it.each(['core', 'adapters', 'testing', 'host'])('@gengate/%s lists the exports of every entry explicitly: no export *', (name) => {
    const offenders = Object.values(entryFiles(name)).filter((f) => /^export \* from /m.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('@gengate/core has one entry per audience: embedder (.), adapter author (./adapter), gengate packages (./internal)', () => {
    expect(Object.keys(core)).toEqual(['.', './adapter', './internal']);
  });

  it.each([
    ['.', 2 / 3],
    ['./adapter', 1 / 3],
  ])('@gengate/core%s is a subset of ./internal, and leaves much of it out', (sub, share) => {
    const narrow = exportedNames(core[sub] ?? '');
    const internal = exportedNames(core['./internal'] ?? '');
    expect([...narrow].filter((n) => !internal.has(n))).toEqual([]);
    // A tripwire against re-exporting everything again: the embedder's entry keeps under two thirds of
    // core's names (composition, use cases, views, ports), the adapter author's under a third. What each
    // keeps, name by name, is its API report (packages/core/api/*.api.md).
    expect(narrow.size).toBeLessThan(internal.size * share);
  });

  it('the narrow entries leave out what only the host wires (address guard, sessions, key secrets, scheduling rules)', () => {
    const narrow = new Set([...exportedNames(core['.'] ?? ''), ...exportedNames(core['./adapter'] ?? '')]);
    const hostOnly = ['guardedLookup', 'fetchInput', 'compileWhitelist', 'csrfTokenFor', 'hashApiKeySecret', 'admitQueued', 'UnitOfWorkTaskIntake'];
    expect(hostOnly.filter((n) => narrow.has(n))).toEqual([]);
  });

  it('@gengate/core/internal says it is internal', () => {
    expect(readFileSync(core['./internal'] ?? '', 'utf8')).toMatch(/^ \* @internal$/m);
  });

  it('the adapter entry has what an adapter author writes against', () => {
    const adapter = exportedNames(core['./adapter'] ?? '');
    for (const n of ['ProviderAdapter', 'ADAPTER_SPECIFICATION_VERSION', 'ModelDescriptor', 'UpstreamError', 'AdapterCall', 'StartedJob', 'LongRunningStatus']) {
      expect(adapter.has(n), n).toBe(true);
    }
  });
});
