import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const packages = join(import.meta.dirname, '..', '..');

function indexFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? indexFiles(join(dir, e.name)) : e.name === 'index.ts' ? [join(dir, e.name)] : [],
  );
}

describe('public API lists', () => {
  it.each(['core', 'adapters', 'testing'])('@gengate/%s lists its exports explicitly: no export * in its indexes', (name) => {
    const offenders = indexFiles(join(packages, name, 'src')).filter((f) => /^export \* from /m.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
