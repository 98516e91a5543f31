import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtInCatalogAdapters, renderProvidersTable, usd, withGeneratedTable } from '../src/index.js';

const DOC = resolve(import.meta.dirname, '../../../docs/providers.md');

describe('docs/providers.md', () => {
  it('holds the catalog as the adapters declare it (run `npm run docs:providers` after changing models or prices)', () => {
    const document = readFileSync(DOC, 'utf8');
    expect(withGeneratedTable(document, renderProvidersTable(builtInCatalogAdapters())), 'docs/providers.md is stale: run `npm run docs:providers`').toBe(document);
  });

  it('lists every built-in model with its price source', () => {
    const document = readFileSync(DOC, 'utf8');
    for (const a of builtInCatalogAdapters()) for (const m of a.models) expect(document).toContain(`\`${m.id}\``);
  });

  it('writes micro-USD as exact dollars', () => {
    expect(usd(2_000_000)).toBe('$2.00');
    expect(usd(6_000)).toBe('$0.006');
    expect(usd(134_000)).toBe('$0.134');
    expect(usd(100_000)).toBe('$0.10');
    expect(usd(0)).toBe('$0.00');
    expect(usd(1_500_000)).toBe('$1.50');
  });
});
