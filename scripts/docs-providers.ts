/**
 * Regenerates the catalog part of docs/providers.md from the adapters' data (models, capabilities,
 * upstream prices and their sources, provider_params). `npm run docs:providers`; a test fails when
 * the file is stale (packages/adapters/test/providers-doc.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { builtInCatalogAdapters, renderProvidersTable, withGeneratedTable } from '@gengate/adapters';

const file = resolve(import.meta.dirname, '../docs/providers.md');
const before = readFileSync(file, 'utf8');
const after = withGeneratedTable(before, renderProvidersTable(builtInCatalogAdapters()));
if (after === before) {
  process.stdout.write('docs/providers.md is up to date\n');
} else {
  writeFileSync(file, after);
  process.stdout.write('docs/providers.md regenerated\n');
}
