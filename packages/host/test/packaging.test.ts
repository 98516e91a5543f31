import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** What makes the packages installable (the packed install itself is `npm run smoke:packages`, run by CI). */
const REPO = resolve(import.meta.dirname, '../../..');
const read = (path: string) => JSON.parse(readFileSync(join(REPO, path), 'utf8')) as Record<string, unknown>;
const PACKAGES = ['core', 'client', 'adapters', 'testing', 'host'];

describe('packaging', () => {
  it.each(PACKAGES)('@gengate/%s exports its compiled dist/ with declarations, and keeps sources for the workspace', (name) => {
    const pkg = read(`packages/${name}/package.json`);
    expect((pkg['exports'] as Record<string, unknown>)['.']).toEqual({ '@gengate/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' });
    expect(pkg['files']).toContain('dist');
    expect(pkg['type']).toBe('module');
    const tsconfig = readFileSync(join(REPO, `packages/${name}/tsconfig.json`), 'utf8');
    expect(tsconfig).toContain('"outDir": "dist"');
  });

  it('@gengate/host has separate entries for the standalone server, for Stripe and for S3', () => {
    expect(read('packages/host/package.json')['exports']).toEqual({
      '.': { '@gengate/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './server': { '@gengate/source': './src/server/index.ts', types: './dist/server/index.d.ts', default: './dist/server/index.js' },
      './stripe': { '@gengate/source': './src/payments/stripe-entry.ts', types: './dist/payments/stripe-entry.d.ts', default: './dist/payments/stripe-entry.js' },
      './s3': { '@gengate/source': './src/storage/s3-entry.ts', types: './dist/storage/s3-entry.d.ts', default: './dist/storage/s3-entry.js' },
    });
  });

  it('npm start and the gengate binary run compiled JavaScript, built by the install step and before each start', () => {
    const root = read('package.json');
    const scripts = root['scripts'] as Record<string, string>;
    expect(scripts['prepare']).toBe('tsc -b && npm run build:dashboard');
    expect(scripts['prestart']).toBe('tsc -b');
    // With a young generation of 16 MB semi-spaces (docs/benchmarks.md: resident memory).
    expect(scripts['start']).toBe('node --max-semi-space-size=16 packages/host/dist/server/cli.js serve');
    expect(scripts['gengate']).toBe('node packages/host/dist/server/cli.js');
    for (const s of ['start', 'gengate']) expect(scripts[s]).not.toMatch(/tsx|@gengate\/source/);
    expect((read('packages/host/package.json')['bin'] as Record<string, string>)['gengate']).toBe('./dist/server/cli.js');
    expect(readFileSync(join(REPO, 'packages/host/src/server/cli.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('the host package ships the OpenAPI document it serves', () => {
    expect(read('packages/host/package.json')['files']).toEqual(['dist', 'assets']);
  });

  it('@gengate/client depends on openapi-fetch only, and on no other gengate package', () => {
    const pkg = read('packages/client/package.json');
    expect(Object.keys(pkg['dependencies'] as object)).toEqual(['openapi-fetch']);
    expect(pkg['devDependencies']).toBeUndefined();
    const sources = readdirSync(join(REPO, 'packages/client/src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const f of sources) expect(readFileSync(join(REPO, 'packages/client/src', f), 'utf8'), f).not.toMatch(/from '@gengate\//);
  });
});
