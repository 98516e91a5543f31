import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * docs/openapi.yaml is the source; the host package carries it as JSON (packages/host/assets/openapi.json)
 * because an installed package has no docs/ folder. `npm run generate:openapi` rewrites the copy;
 * packages/host/test/openapi-document.test.ts fails while it is stale.
 */
export const OPENAPI_YAML = resolve(import.meta.dirname, '../docs/openapi.yaml');
export const OPENAPI_JSON = resolve(import.meta.dirname, '../packages/host/assets/openapi.json');

export function openApiJson(): string {
  return `${JSON.stringify(parse(readFileSync(OPENAPI_YAML, 'utf8')), null, 2)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  writeFileSync(OPENAPI_JSON, openApiJson());
  process.stdout.write(`wrote ${OPENAPI_JSON}\n`);
}
