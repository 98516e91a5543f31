import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * Tracing off costs nothing: a fresh Node process builds a host the way the standalone server does with
 * no OTEL_* variables (startTracing -> null) and reports every module it resolved and whether an
 * OpenTelemetry API registered anything globally. With OTEL_TRACES_EXPORTER=otlp the same program loads
 * the SDK and registers its tracer provider (so the check can see one). (The no-op `@opentelemetry/api`
 * itself is loaded either way: prom-client imports it; it registers nothing.)
 */
const REPO = resolve(import.meta.dirname, '../../..');
const NODE = join(REPO, 'node_modules/.bin/node');
const HOOK = `./${join('packages/host/test/support/record-module-graph.mjs')}`;

async function run(env: Record<string, string>): Promise<{ modules: string[]; tracing: boolean; globals: { api: boolean; tracerProvider: boolean } }> {
  const program = `
    import { createGengateHost, startTracing } from '@gengate/host';
    import { createSandboxAdapter } from '@gengate/adapters';
    const tracing = await startTracing(process.env);
    const host = await createGengateHost({ database: { url: 'postgres://nobody@127.0.0.1:1/none' }, adapters: [createSandboxAdapter()], tracing });
    if (typeof host.router !== 'function') throw new Error('no router');
    const api = globalThis[Symbol.for('opentelemetry.js.api.1')];
    process.stdout.write('TRACING ' + JSON.stringify({ tracing: tracing !== null, globals: { api: api !== undefined, tracerProvider: api?.trace !== undefined } }) + '\\n');
    await host.close({ graceMs: 1000 });
  `;
  const { stdout } = await promisify(execFile)(NODE, ['--conditions=@gengate/source', '--import', 'tsx', '--import', HOOK, '--input-type=module', '-e', program], {
    cwd: REPO,
    env: { ...process.env, DATABASE_URL: '', OTEL_TRACES_EXPORTER: '', OTEL_SDK_DISABLED: '', ...env },
  });
  const line = (prefix: string) => {
    const l = stdout.split('\n').find((x) => x.startsWith(prefix));
    if (!l) throw new Error(`no ${prefix} line in: ${stdout}`);
    return l.slice(prefix.length);
  };
  const t = JSON.parse(line('TRACING ')) as { tracing: boolean; globals: { api: boolean; tracerProvider: boolean } };
  return { modules: JSON.parse(line('MODULES ')) as string[], ...t };
}

// The no-op API package (@opentelemetry/api) is loaded by prom-client (/metrics, for its exemplars) whether or not
// tracing is on; what tracing adds is the SDK, the exporter, the AI SDK's integration and gengate's span code.
const otelModules = (urls: readonly string[]) =>
  urls.filter((u) => /\/node_modules\/(@opentelemetry\/(?!api\/)|@ai-sdk\/otel\/)|\/packages\/host\/src\/tracing\/otel\//.test(u));

describe('tracing off by default', () => {
  it("without OTEL_* variables: no OpenTelemetry SDK module (nor gengate's span code) is loaded and no tracer provider is registered", { timeout: 60_000 }, async () => {
    const off = await run({});
    expect(off.tracing).toBe(false);
    expect(off.globals).toEqual({ api: false, tracerProvider: false });
    expect(otelModules(off.modules)).toEqual([]);
    expect(off.modules.some((u) => u.endsWith('/packages/host/src/embed/create-gengate-host.ts'))).toBe(true);
  });

  it('OTEL_SDK_DISABLED=true wins over OTEL_TRACES_EXPORTER=otlp', { timeout: 60_000 }, async () => {
    const disabled = await run({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' });
    expect(disabled.tracing).toBe(false);
    expect(otelModules(disabled.modules)).toEqual([]);
  });

  it('(the check sees them) OTEL_TRACES_EXPORTER=otlp loads the SDK and registers its tracer provider', { timeout: 60_000 }, async () => {
    const on = await run({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.tracing).toBe(true);
    expect(on.globals).toEqual({ api: true, tracerProvider: true });
    const loaded = otelModules(on.modules);
    for (const name of ['@opentelemetry/sdk-trace-node/', '@opentelemetry/exporter-trace-otlp-http/', 'packages/host/src/tracing/otel/start-otel-sdk.ts']) {
      expect(loaded.some((u) => u.includes(name)), name).toBe(true);
    }
  });
});
